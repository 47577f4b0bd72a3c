// pi-daemon protocol v2 records as the gateway's daemon relay reads and writes them
// (schemas/pi-daemon-protocol-v2.schema.json): turning a browser's frame into one NDJSON line, the
// one policy the gateway adds, and the response shape of the gateway's own refusals.
//
// What the relay checks, and why no more: a frame must be one JSON object of at most the daemon's
// line limit (else `invalid_json` / `line_too_large`, then a close — what the daemon itself does
// with such a line). The command envelope and each operation's payload are left to the daemon: it
// is the authority on v2, answers a bad command with a precise code (`invalid_field` with details,
// `unknown_operation`, `incompatible_protocol`) and keeps the connection, and a second check here
// would refuse operations a newer 2.x daemon accepts. The fields the gateway reads are `open`'s:
// `payload.resources.tools` (a page may not hand the model the host's filesystem tools) and,
// unless the gateway allows stored sessions, `payload.session` and `payload.agentDir` (a page may
// open memory sessions only: it may not read or write the host's session files, or point the
// daemon at another agent folder with its models and credentials).

/** The protocol version the gateway's own records carry when the browser's gives none usable. */
export const DAEMON_PROTOCOL_VERSION = '2.0';
/**
 * hostInstanceId of the gateway's own refusals until the daemon has named its own. After that the
 * gateway answers under the daemon's id: a client treats a new hostInstanceId on a link as a
 * restarted host, which a gateway refusal is not. `error.details.source` still says who refused.
 */
export const GATEWAY_INSTANCE_ID = 'aicc-gateway';
/** requestId of a refusal that answers no readable request (the schema wants one; pi-daemon's simulator uses the same). */
export const UNKNOWN_REQUEST_ID = 'unknown';

/** Codes of the gateway's own refusals; the daemon's codes pass through untouched. */
export type DaemonRelayErrorCode = 'invalid_json' | 'line_too_large' | 'denied_by_gateway' | 'daemon_unavailable';

export interface DaemonErrorResponse {
  protocolVersion: string;
  kind: 'response';
  requestId: string;
  hostInstanceId: string;
  ok: false;
  error: { code: DaemonRelayErrorCode; message: string; retryable: boolean; details: { source: typeof GATEWAY_INSTANCE_ID } };
}

/** What the browser's command said about itself, for answering it. */
export interface CommandIds {
  requestId?: string;
  protocolVersion?: string;
}

/**
 * A refusal made by the gateway, shaped like a daemon response (and valid by the schema). Its
 * message starts with "aicc gateway:"; `hostInstanceId` is the daemon's once known.
 */
export function gatewayError(ids: CommandIds, hostInstanceId: string, code: DaemonRelayErrorCode, message: string, retryable = false): DaemonErrorResponse {
  return {
    protocolVersion: ids.protocolVersion ?? DAEMON_PROTOCOL_VERSION,
    kind: 'response',
    requestId: ids.requestId ?? UNKNOWN_REQUEST_ID,
    hostInstanceId,
    ok: false,
    error: { code, message: `aicc gateway: ${message}`, retryable, details: { source: GATEWAY_INSTANCE_ID } },
  };
}

/** The hostInstanceId a daemon line names, if it is a record with a usable one. */
export function hostInstanceIdOf(line: string): string | undefined {
  try {
    const value = JSON.parse(line) as { hostInstanceId?: unknown } | null;
    const id = value !== null && typeof value === 'object' ? value.hostInstanceId : undefined;
    return typeof id === 'string' && id.length >= 1 && id.length <= 512 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A frame read as one line for the daemon, or why it is refused (the refusal ends the connection). */
export type ReadFrame =
  | { ok: true; line: string; record: Record<string, unknown>; ids: CommandIds }
  | { ok: false; code: 'invalid_json' | 'line_too_large'; message: string };

const RAW_LINE_BREAK = /[\r\n]/g;

/**
 * Reads one browser frame. A JSON text holds a raw CR or LF only as whitespace between tokens (never
 * inside a string), so each becomes a space: the line keeps its length and meaning, cannot split in
 * two on the daemon's side, and is otherwise forwarded byte for byte.
 */
export function readFrame(frame: string | Buffer, maxLineBytes: number): ReadFrame {
  if (typeof frame !== 'string') return { ok: false, code: 'invalid_json', message: 'pi-daemon records are JSON text; send a text frame, not a binary one' };
  const bytes = Buffer.byteLength(frame, 'utf8');
  if (bytes > maxLineBytes) {
    return { ok: false, code: 'line_too_large', message: `a record of ${bytes} bytes is over the daemon's line limit of ${maxLineBytes} bytes; send a shorter one` };
  }
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    // JSON.parse's message quotes the text, which may hold anything (a pasted key): never repeated.
    return { ok: false, code: 'invalid_json', message: 'not JSON; send one JSON object per text frame' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, code: 'invalid_json', message: 'a record must be a JSON object; send one command object per text frame' };
  }
  const record = value as Record<string, unknown>;
  return { ok: true, line: frame.replace(RAW_LINE_BREAK, ' '), record, ids: idsOf(record) };
}

export interface DaemonPolicy {
  /** Pages may open sessions stored on the host (modes new/open/continue, paths, agentDir). Default false. */
  storedSessions?: boolean;
}

/** The gateway's policy on a command the daemon would otherwise take: why it is refused, or undefined to forward it. */
export function checkPolicy(record: Record<string, unknown>, policy: DaemonPolicy = {}): string | undefined {
  if (record.operation !== 'open') return undefined;
  const payload = record.payload;
  if (payload === null || typeof payload !== 'object') return undefined;
  const open = payload as Record<string, unknown>;
  const resources = open.resources;
  if (resources !== null && typeof resources === 'object' && 'tools' in resources && (resources as Record<string, unknown>).tools !== 'none') {
    return 'payload.resources.tools must be "none": a page may not give the model the host\'s filesystem tools; a character acts through its game\'s AICC tools';
  }
  if (policy.storedSessions === true) return undefined;
  const session = open.session !== null && typeof open.session === 'object' ? (open.session as Record<string, unknown>) : {};
  const stored = ['path', 'sessionDir'].find((name) => name in session) ?? ('agentDir' in open ? 'agentDir' : undefined);
  if (session.mode !== 'memory' || stored !== undefined) {
    const what = stored === undefined ? `payload.session.mode ${JSON.stringify(session.mode)}` : stored === 'agentDir' ? 'payload.agentDir' : `payload.session.${stored}`;
    return `${what}: a page may open memory sessions only (session.mode "memory", no path, sessionDir or agentDir); start the gateway with --daemon-stored-sessions to let pages use the host's stored sessions`;
  }
  return undefined;
}

function idsOf(record: Record<string, unknown>): CommandIds {
  const ids: CommandIds = {};
  // Echoed only when the schema would accept them, so a refusal is itself a valid record.
  if (typeof record.requestId === 'string' && record.requestId.length >= 1 && record.requestId.length <= 512) ids.requestId = record.requestId;
  if (typeof record.protocolVersion === 'string' && /^2\.[0-9]+$/.test(record.protocolVersion)) ids.protocolVersion = record.protocolVersion;
  return ids;
}
