// aicc-capsule/core: the runtime without the ajv compiler. Tool schemas are checked by the
// validators you pass: precompiledValidators(…) keeps the compiler out of your bundle.

export { createCapsule } from './runtime/capsule.js';
export { ManualClock, realClock, isManualClock } from './runtime/clock.js';
export { startAnimationFrameDriver, startIntervalDriver } from './runtime/drivers.js';
export { CapsuleError, ToolError, REFUSALS, refusal } from './runtime/errors.js';
export { EventQueue } from './runtime/events.js';
export { deliveryIntervalMs, CLASS_BUDGET_MS } from './runtime/cadence.js';
export { cryptoBytes, randomUuid } from './runtime/ids.js';
export { DEFAULT_INBOUND_LIMITS } from './runtime/inbound.js';
export { checkAgentMessage, checkBridgeMessage, checkMessage } from './runtime/messageCheck.js';
export { PROTOCOL, TOPICS, MESSAGE_TYPES, ERROR_CODES, IMMEDIATE_MARK, NIL_UUID } from './runtime/protocol.js';
export { Session } from './runtime/session.js';
export { describeAjvError, schemaFingerprint, strictSchema, validatorKey } from './runtime/validator.js';
export { jsonCodec } from './links/codec.js';
export { binaryCodec } from './links/binaryCodec.js';
export { objectCodec } from './links/objectCodec.js';
export { createMemoryLinkPair } from './links/memory.js';
export { connectWebSocket, webSocketLink } from './links/websocket.js';
export { tapLink } from './links/tap.js';
export { Wire } from './links/wire.js';
export { AgentClient } from './agent/agentClient.js';
export { Memory, ScriptedAgent, runRules } from './agent/scripted.js';

export type { Capsule, CapsuleEvents, EmitOptions, SessionChange, TappedMessage } from './runtime/capsule.js';
export type { CapsuleOptions, ConnectOptions } from './runtime/options.js';
export type { CallRecord, HostError } from './runtime/calls.js';
export type { Clock, TimerId } from './runtime/clock.js';
export type { Steppable, StopDriver } from './runtime/drivers.js';
export type { CapsuleErrorCode, RefusalKind } from './runtime/errors.js';
export type { EventPayloads, QueuedEvent } from './runtime/events.js';
export type { RandomBytes } from './runtime/ids.js';
export type { InboundLimits, Verdict } from './runtime/inbound.js';
export type { MessageChecker, Sender } from './runtime/messageCheck.js';
export type * from './runtime/protocol.js';
export type { CallResult } from './runtime/resultCache.js';
export type { SessionState, SessionStats, ToolUsageSnapshot } from './runtime/session.js';
export type { RegisteredTool, ToolContext, ToolDefinition, ToolHandle, ToolHandler } from './runtime/tool.js';
export { selectTools, withOverrides } from './runtime/toolOverrides.js';
export type { ToolOverrides, ToolSelection } from './runtime/toolOverrides.js';
export type { AjvErrorLike, SchemaValidator, Validation, ValidatorFactory, ValidatorPurpose } from './runtime/validator.js';
export type { Codec, Frame } from './links/codec.js';
export type { Link, LinkHandlers } from './links/link.js';
export type { MemoryLinkOptions } from './links/memory.js';
export type { ConnectWebSocketOptions, WebSocketConstructor, WebSocketLike } from './links/websocket.js';
export type { InvalidFrame, WireHandlers, WireOptions } from './links/wire.js';
export type { AgentClientOptions, AgentEvents, CallOptions, CallOutcome } from './agent/agentClient.js';
export type { Rule } from './agent/scripted.js';
