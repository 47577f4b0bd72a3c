// pi-daemon protocol v2 (schemas/pi-daemon-protocol-v2.schema.json) as TypeScript types, plus the
// version arithmetic of the handshake. The schema is the authority for records; the shapes of
// response `data` are not in it and follow what pi-daemon 0.3.3 was observed to send
// (/work/shared/reference/pi-protocols.md §3). Those are read defensively (src/pi/daemonRecords.ts).

/** The protocol version this client writes on every command. */
export const DAEMON_PROTOCOL_VERSION = '2.0';

/** The major version this client speaks; a host that offers no 2.x is refused. */
export const DAEMON_MAJOR = 2;

/** How long `drain` lets running and queued turns finish before aborting them: pi-daemon's default. */
export const DAEMON_DRAIN_TIMEOUT_MS = 30_000;

export const DAEMON_OPERATIONS = ['handshake', 'open', 'attach', 'detach', 'wake', 'steer', 'followUp', 'status', 'abort', 'close', 'drain'] as const;

export type DaemonOperation = (typeof DAEMON_OPERATIONS)[number];

/** A session incarnation: events and commands are bound to both. */
export interface SessionRef {
  sessionId: string;
  /** Raised for every new incarnation; a lower one is stale. */
  generation: number;
}

/** One command record, as sent. */
export interface DaemonCommand {
  protocolVersion: string;
  requestId: string;
  operation: DaemonOperation;
  payload: Record<string, unknown>;
  sessionId?: string;
  generation?: number;
  idempotencyKey?: string;
}

/** The error object of a failed response. `code` is kept as sent: the host has more than we list. */
export interface DaemonWireError {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export interface DaemonResponse {
  protocolVersion: string;
  kind: 'response';
  requestId: string;
  hostInstanceId: string;
  sessionId?: string;
  sequence?: number;
  ok: boolean;
  data?: unknown;
  error?: DaemonWireError;
}

export interface DaemonEvent {
  protocolVersion: string;
  kind: 'event';
  /** promptAccepted, agentStart, messageUpdate, agentEnd, sessionIdle, requestFailed, opened, … */
  event: string;
  hostInstanceId: string;
  sessionId: string;
  generation: number;
  /** Per session, +1 per event, restarting at 1 when the session is (re)opened. */
  sequence: number;
  requestId?: string;
  data?: unknown;
}

/** How a session keeps its conversation: `memory` is lost with the host; the others are files. */
export type SessionMode = 'new' | 'open' | 'continue' | 'memory';

export interface ModelPolicy {
  provider: string;
  id: string;
  thinkingLevel?: 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
}

/**
 * What the session may load. This client sets every resource to "none": a game character needs
 * no extensions, skills or files, and v2's host tools are six filesystem operations, not game tools.
 */
export interface ResourcePolicy {
  extensions: 'none';
  skills: 'none';
  promptTemplates: 'none';
  themes: 'none';
  contextFiles: 'none';
  tools: 'none';
  /** At most 262,144 characters. */
  systemPrompt?: string;
}

/** `open`'s payload, as the caller gives it (resources are filled in by the client). */
export interface OpenOptions {
  /** The session's working directory on the host. */
  cwd: string;
  session: { mode: SessionMode; path?: string; sessionDir?: string };
  name?: string;
  agentDir?: string;
  model?: ModelPolicy;
  /** Goes into resources.systemPrompt. */
  systemPrompt?: string;
}

/** A session as `open` and `status` describe it; fields beyond these are kept, untyped. */
export interface DaemonSessionSnapshot extends SessionRef {
  state?: string;
  [field: string]: unknown;
}

export interface OpenResult {
  created: boolean;
  session: DaemonSessionSnapshot;
}

export interface AttachResult {
  attached: boolean;
  generation: number;
  /** The session's sequence at attach time: the next event is sequence + 1. */
  sequence: number;
}

/** One turn's outcome: `wake` with waitForTerminal answers with it (an aborted turn: the partial text). */
export interface WakeResult {
  text: string;
  sessionId: string;
  model?: unknown;
  thinkingLevel?: unknown;
  [field: string]: unknown;
}

/** What the handshake told about the host. */
export interface DaemonHostInfo {
  hostInstanceId: string;
  /** The version negotiated from `supportedProtocolVersions`. */
  protocolVersion: string;
  supportedProtocolVersions: string[];
  ready: boolean;
  capabilities: Record<string, unknown>;
  limits: Record<string, unknown>;
  host: Record<string, unknown>;
}

/**
 * The version to write on commands, given the host's `supportedProtocolVersions`: ours (2.0) when
 * the host offers any 2.x (minor versions only add), else undefined (it speaks only 1.x, or only a
 * later major). The handshake's own `data.protocolVersion` is not used: pi-daemon 0.3.3 reports
 * "1.0" there even to a v2 request.
 */
export function negotiateDaemonVersion(supported: readonly string[]): string | undefined {
  return supported.some((version) => new RegExp(`^${DAEMON_MAJOR}\\.\\d+$`).test(version)) ? DAEMON_PROTOCOL_VERSION : undefined;
}
