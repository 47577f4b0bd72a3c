// aicc-capsule/core: the runtime without the ajv compiler. Tool schemas are checked by the
// validators you pass: precompiledValidators(…) from aicc-capsule/precompiled keeps the compiler out
// of your bundle.
//
// This file is the public surface of the runtime, chosen name by name: the root entry (index.ts) is
// this list plus a createCapsule that compiles schemas with ajv. test/api/apiReport.test.ts pins
// every entry's names; a change here is a change to the package's API, reviewed as one.

// ── values ───────────────────────────────────────────────────────────────────────────────────
export { createCapsule } from './runtime/capsule.js';
export { ManualClock, realClock } from './base/clock.js';
export { startAnimationFrameDriver, startIntervalDriver } from './runtime/drivers.js';
export { CapsuleError, ToolError } from './base/errors.js';
export { defineTool } from './runtime/tool.js';
export { decisionBudgets } from './runtime/decisionBudget.js';
export { jsonCodec } from './protocol/codec.js';
export { binaryCodec } from './protocol/binaryCodec.js';
export { objectCodec } from './protocol/objectCodec.js';
export { batchedFraming } from './protocol/batchedFraming.js';
export { createMemoryLinkPair } from './links/memory.js';
export { connectWebSocket, webSocketLink } from './links/websocket.js';
export { AgentClient } from './agent/agentClient.js';
export { connectInProcess } from './agent/inProcess.js';
export { ScriptedAgent } from './agent/scripted.js';

// ── types ────────────────────────────────────────────────────────────────────────────────────
// The capsule, its sessions and its events.
export type { Capsule, CapsuleEvents, CallEvent, EmitOptions, SessionChange, TappedMessage } from './runtime/capsule.js';
export type { CapsuleOptions, ConnectOptions } from './runtime/options.js';
export type { AcceptOptions } from './runtime/resumeLink.js';
export type { SessionView, SessionState, SessionStats, ToolUsageSnapshot } from './runtime/sessionTypes.js';
export type { DecisionBudget, DecisionBudgets, DecisionCounts, DecisionLate, WhenLate, AppliedWhenLate } from './runtime/decisionBudget.js';
export type { ReplayStore, SentEvent, EventEnvelope } from './runtime/resumeReplay.js';
export type { CallRecord, HostError } from './runtime/calls.js';
export type { CallResult } from './runtime/resultCache.js';
export type { EventPayloads } from './runtime/events.js';
export type { CapsuleErrorCode } from './base/errors.js';
// Time.
export type { Clock, TimerId, TimerOptions } from './base/clock.js';
export type { Steppable, StopDriver } from './runtime/drivers.js';
// Tools.
export type { ToolContext, ToolDefinition, ToolHandle, ToolHandler, ToolSpec, TypedToolSpec } from './runtime/tool.js';
export type { FromSchema, SchemaLiteral } from './runtime/schemaType.js';
export type { StandardSchemaV1 } from './runtime/standardSchema.js';
export type { SchemaValidator, Validation, ValidatorFactory, ValidatorPurpose } from './runtime/validator.js';
// The wire: aicc/0.1's messages, codecs, framing and links.
export type {
  AgentModel,
  AiccMessage,
  Capabilities,
  ErrorCode,
  EventMessage,
  JsonObject,
  Limits,
  Manifest,
  ManifestUpdate,
  MessageType,
  Meta,
  ModelClass,
  TickMode,
  ToolClass,
  ToolDescriptor,
  Topic,
  WireError,
  World,
  WorldKind,
} from './protocol/messages.js';
export type { RandomBytes } from './protocol/ids.js';
export type { InboundLimits } from './protocol/inbound.js';
export type { Codec, Frame } from './protocol/codec.js';
export type { Framing } from './protocol/wire.js';
export type { Link, LinkHandlers } from './links/link.js';
export type { MemoryLinkOptions } from './links/memory.js';
export type { ConnectWebSocketOptions, WebSocketConstructor, WebSocketLike, WebSocketLinkOptions } from './links/websocket.js';
// Agents.
export type { AgentClientOptions, AgentEvents, CallOptions, CallOutcome } from './agent/agentClient.js';
export type { InProcessOptions } from './agent/inProcess.js';
export type { Rule } from './agent/scripted.js';
