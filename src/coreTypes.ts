// The types of the runtime's public surface, chosen name by name: aicc-capsule/core and the root
// entry both export them all (their values differ: core.ts and index.ts).

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
