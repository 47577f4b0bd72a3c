// The wire types of aicc/0.1, written from schemas/aicc.schema.json. The schema is the authority:
// every inbound message is checked against it, and these types say what a checked message holds.

export const PROTOCOL = 'aicc/0.1';

export type MessageType =
  | 'session_init'
  | 'session_resume'
  | 'session_close'
  | 'manifest_request'
  | 'tool_call'
  | 'tool_result'
  | 'event'
  | 'error'
  | 'heartbeat';

export const MESSAGE_TYPES: readonly MessageType[] = [
  'session_init',
  'session_resume',
  'session_close',
  'manifest_request',
  'tool_call',
  'tool_result',
  'event',
  'error',
  'heartbeat',
];

export type TickMode = 'fixed' | 'event' | 'hybrid';
export type WorldKind = '2d' | '3d' | 'text' | 'abstract';
export type ModelClass = 'edge_small' | 'edge_medium' | 'cloud_medium' | 'cloud_large';
export type ToolClass = 'sensor' | 'actuator' | 'generator';
export type Topic = 'tick' | 'collision' | 'audio' | 'state_change' | 'agent_message';
/** The reserved topics. This order is also the binary codec's wire order: append only. */
export const TOPICS: readonly Topic[] = ['tick', 'collision', 'audio', 'state_change', 'agent_message'];

export type ErrorCode =
  | 'protocol_mismatch'
  | 'session_expired'
  | 'tool_unknown'
  | 'tool_unavailable'
  | 'invalid_input'
  | 'execution_failed'
  | 'timeout'
  | 'internal_error';

/** Every error code. This order is also the binary codec's wire order: append only. */
export const ERROR_CODES: readonly ErrorCode[] = [
  'protocol_mismatch',
  'session_expired',
  'tool_unknown',
  'tool_unavailable',
  'invalid_input',
  'execution_failed',
  'timeout',
  'internal_error',
];

/** A JSON object as it travels on the wire. */
export type JsonObject = { [key: string]: unknown };

export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
}

export interface Meta {
  tick?: number;
  latency_ms?: number;
  source?: string;
  [extra: string]: unknown;
}

export interface Limits {
  calls_per_minute?: number;
  calls_per_session?: number;
}

/** A tool as the manifest describes it to agents. */
export interface ToolDescriptor {
  id: string;
  class: ToolClass;
  description: string;
  input_schema: JsonObject;
  output_schema: JsonObject;
  limits?: Limits;
  requires_capability?: string;
  strict_input?: boolean;
}

export interface Capabilities {
  sensors: string[];
  actuators: string[];
  generators: string[];
}

export interface AgentModel {
  class: ModelClass;
  expected_first_token_ms?: number;
  expected_full_response_ms?: number;
}

export interface World {
  name: string;
  kind: WorldKind;
}

interface Envelope<T extends MessageType> {
  protocol: typeof PROTOCOL;
  type: T;
  session_id: string;
  message_id: string;
}

/** The session manifest: everything session_init carries beyond its envelope. */
export interface Manifest {
  tick_rate_hz: number;
  tick_mode: TickMode;
  world: World;
  capabilities: Capabilities;
  tools: ToolDescriptor[];
  agent_model: AgentModel;
  event_subscriptions?: string[];
}

export interface SessionInit extends Envelope<'session_init'>, Manifest {}
export type SessionResume = Envelope<'session_resume'>;
export interface SessionClose extends Envelope<'session_close'> {
  reason?: string;
}
export type ManifestRequest = Envelope<'manifest_request'>;

export interface ToolCall extends Envelope<'tool_call'> {
  call_id: string;
  tool: string;
  input: JsonObject;
}

export interface ToolResult extends Envelope<'tool_result'> {
  call_id: string;
  ok: boolean;
  output?: JsonObject;
  error?: WireError;
  meta?: Meta;
}

export interface EventMessage extends Envelope<'event'> {
  topic: Topic;
  payload: JsonObject;
  meta?: Meta;
}

export interface ErrorMessage extends Envelope<'error'> {
  error: WireError;
}

/**
 * `manifest_update`, as this project reads the schema ("same shape as session_init minus
 * session_id and message_id"): the whole manifest with `protocol` and `type: 'session_init'`.
 */
export interface ManifestUpdate extends Manifest {
  protocol: typeof PROTOCOL;
  type: 'session_init';
}

export interface Heartbeat extends Envelope<'heartbeat'> {
  manifest_update?: ManifestUpdate;
}

export type AiccMessage = SessionInit | SessionResume | SessionClose | ManifestRequest | ToolCall | ToolResult | EventMessage | ErrorMessage | Heartbeat;

/** Messages only the bridge sends, and messages only the agent sends. */
export const BRIDGE_ONLY: ReadonlySet<MessageType> = new Set(['session_init', 'tool_result', 'event', 'error']);
export const AGENT_ONLY: ReadonlySet<MessageType> = new Set(['session_resume', 'manifest_request', 'tool_call']);

/**
 * In hybrid mode a call whose `call_id` starts with this mark is evaluated at once instead of at
 * the next fixed tick (docs/PROTOCOL.md, "Hybrid mode").
 */
export const IMMEDIATE_MARK = '!';

/** The nil UUID: the session id of an `error` sent before any session exists. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';
