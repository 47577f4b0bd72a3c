// pi-peers 1.0 (schemas/pi-peers-1.0.schema.json) as TypeScript types, plus the version arithmetic
// of the hello. The schema is the authority: these types mirror it, and the generated validators
// (./generated/peers-validators.js) check every record against it at run time.

/** "MAJOR.MINOR". */
export type PeersVersion = string;

/** A side's supported versions, both ends included. */
export interface VersionRange {
  /** Highest version supported. */
  version: PeersVersion;
  /** Lowest version still supported. */
  minVersion: PeersVersion;
}

/** Who is speaking: shown to the receiving model in the provenance header. */
export interface Peer {
  id: string;
  label: string;
  host: string;
}

/** What this client speaks. Minor versions only add optional things, so 1.x servers overlap. */
export const PEERS_PROTOCOL: Readonly<VersionRange> = Object.freeze({ version: '1.0', minVersion: '1.0' });

/** The schema's ErrorCode enum, in its order. test/pi/peersProtocol.test.ts keeps the two equal. */
export const PEERS_ERROR_CODES = [
  'hello_required',
  'auth_failed',
  'incompatible_version',
  'invalid_request',
  'unsupported_command',
  'denied',
  'approval_timeout',
  'no_ui',
  'steer_not_allowed',
  'hop_limit',
  'ambiguous_target',
  'agent_not_found',
  'agent_unavailable',
  'connection_lost',
  'ssh_failed',
  'internal_error',
] as const;

export type PeersWireErrorCode = (typeof PEERS_ERROR_CODES)[number];

const WIRE_CODES: ReadonlySet<string> = new Set(PEERS_ERROR_CODES);

export function isPeersWireErrorCode(code: unknown): code is PeersWireErrorCode {
  return typeof code === 'string' && WIRE_CODES.has(code);
}

export type DeliveryKind = 'prompt' | 'follow_up' | 'steer';

export const DELIVERY_KINDS: readonly DeliveryKind[] = ['prompt', 'follow_up', 'steer'];

/** The first record on every connection; frozen across versions. */
export interface HelloRecord {
  id: string;
  type: 'hello';
  protocol: VersionRange;
  /** From the agent's discovery file. Remote clients omit it: the bridge adds it. */
  token?: string;
  from?: Peer;
}

export interface GetStateRecord extends Partial<StateWait> {
  id: string;
  type: 'get_state';
}

export interface GetLastAssistantTextRecord {
  id: string;
  type: 'get_last_assistant_text';
}

/** A message injected into the receiving agent. `id` is also the dedupe key (10 minutes). */
export interface DeliveryRecord {
  id: string;
  type: DeliveryKind;
  message: string;
  /** Peer messages in this chain so far, this one included. Refused above 3. */
  hops?: number;
  /** The sender waits for the answer; shapes the reply hint. */
  awaitsReply?: boolean;
}

/** Any record a client sends. */
export type PeersRequest = HelloRecord | GetStateRecord | GetLastAssistantTextRecord | DeliveryRecord;

/**
 * The reply to one request, matched by id: pi's RPC response plus errorCode and retryable.
 * `errorCode` is a string, not the enum: a later 1.x server may send codes this client does not know.
 */
export interface PeersResponse {
  type: 'response';
  id: string;
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
  errorCode?: string;
  retryable?: boolean;
}

/**
 * get_state data: the agent's discovery entry without its token, plus live status. Fields a later
 * minor version adds are kept on the object, untyped.
 */
export interface AgentState {
  id: string;
  label: string;
  host: string;
  cwd: string;
  schemaVersion?: PeersVersion;
  protocol?: VersionRange;
  sessionName?: string;
  piSessionId?: string;
  runtime?: string;
  via?: string;
  remoteRuntime?: string;
  pid?: number;
  endpoint?: string;
  piVersion?: string;
  startedAt?: string;
  /** No run in progress. */
  idle?: boolean;
  /** Completed agent runs: a waiting sender compares it before and after. */
  settled?: number;
  /** idle, busy, or an error code. */
  status?: string;
  /**
   * The aicc gateway's reply-wait extension (see `StateWait`): true when the agent held this
   * get_state until the wait was met or its hold ran out. Absent from a plain pi-peers agent.
   */
  held?: boolean;
  /** With `held`, once the wait is met: the text of the reply that settled it (null for none). */
  lastAssistantText?: string | null;
  /**
   * The aicc gateway's native-tools extension: the characters whose aicc tools this agent calls as
   * its own tools, over MCP (`aicc gateway host … --mcp --mcp-character ID`). A pilot driving one of
   * them briefs the model to call them and reads no calls out of its replies. Absent from a plain
   * pi-peers agent.
   */
  aiccNativeCharacters?: string[];
  /**
   * The aicc gateway's usage extension, when it hosts pi: pi's token counts and cost summed over
   * every model message since pi started (prompt tokens with the cached ones). Like `settled`, a
   * sender reads it before delivering and after the reply: the difference is what the reply cost.
   * Absent from a plain pi-peers agent, and until pi has reported any usage.
   */
  aiccUsage?: UsageTotals;
}

/** Summed usage of the aicc gateway's extension (AgentState.aiccUsage). */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** US dollars, as pi computes it from its model catalog (0 for a model with no prices). */
  costUsd: number;
}

/**
 * The aicc gateway's reply-wait extension of get_state: hold the answer until `settled >
 * settledAbove` and the agent is idle, or `holdMs` has passed. A plain pi-peers agent ignores both
 * fields (receivers ignore what they do not know) and answers at once.
 */
export interface StateWait {
  settledAbove: number;
  holdMs: number;
}

/** [major, minor] of a version the schema's pattern admits; undefined for anything else. */
export function parseVersion(version: string): [number, number] | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/** Negative, zero or positive as `a` is below, equal to or above `b`. */
export function compareVersions(a: [number, number], b: [number, number]): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/**
 * The highest version both ranges include, or undefined when they do not overlap (or a range is
 * not MAJOR.MINOR, or is upside down).
 */
export function negotiateVersion(ours: VersionRange, theirs: VersionRange): PeersVersion | undefined {
  const [ourMax, ourMin, theirMax, theirMin] = [ours.version, ours.minVersion, theirs.version, theirs.minVersion].map(parseVersion);
  if (ourMax === undefined || ourMin === undefined || theirMax === undefined || theirMin === undefined) return undefined;
  const high = compareVersions(ourMax, theirMax) <= 0 ? ourMax : theirMax;
  const low = compareVersions(ourMin, theirMin) >= 0 ? ourMin : theirMin;
  return compareVersions(low, high) <= 0 ? `${high[0]}.${high[1]}` : undefined;
}
