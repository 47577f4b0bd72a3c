// pi-daemon protocol v2 records as the gateway's daemon relay reads and writes them
// (schemas/pi-daemon-protocol-v2.schema.json): turning a browser's frame into one NDJSON line, the
// gateway's policy on what a page may open, and the response shape of the gateway's own refusals.
// Which sessions a page may reach is daemonIsolation.ts.
//
// A frame is answered as pi-daemon 0.3.3 answers the same line (observed, see docs/PILOT.md): text
// that is not JSON gets `invalid_json` and the connection ends; JSON that is not an object
// (an array, a string, null, a number) gets `invalid_field` (field "command") and the connection
// stays; a record over the line limit gets `line_too_large` and the connection ends; an empty
// frame, like an empty line, gets nothing. The command envelope and each operation's payload are
// otherwise left to the daemon: it is the authority on v2, answers a bad command with a precise
// code (`invalid_field` with details, `unknown_operation`, `incompatible_protocol`), and a second
// check here would refuse what a newer 2.x daemon accepts. The policy reads `open`'s
// `payload.resources.tools` (a page may not hand the model the host's filesystem tools) and,
// unless the gateway allows stored sessions, `payload.session` and `payload.agentDir` (a page may
// open memory sessions only: it may not read or write the host's session files, or point the
// daemon at another agent folder with its models and credentials). The wire model itself — the
// version, the response and its error codes — is src/pi/daemonProtocol.ts and daemonError.ts, the
// one DaemonClient speaks; the gateway's own records are shaped from it.

import type { DaemonWireErrorCode } from '../../pi/daemonError.js';
import { DAEMON_PROTOCOL_VERSION, negotiateDaemonVersion, type DaemonResponse, type DaemonWireError } from '../../pi/daemonProtocol.js';
/**
 * hostInstanceId of the gateway's own refusals until the daemon has named its own. After that the
 * gateway answers under the daemon's id: a client treats a new hostInstanceId on a link as a
 * restarted host, which a gateway refusal is not. `error.details.source` still says who refused.
 */
export const GATEWAY_INSTANCE_ID = 'aicc-gateway';
/** requestId of a refusal that answers no readable request (the schema wants one; pi-daemon's simulator uses the same). */
export const UNKNOWN_REQUEST_ID = 'unknown';

/**
 * Codes of the gateway's own answers; the daemon's answers pass through untouched. Two are the
 * gateway's alone (`denied_by_gateway`, `daemon_unavailable`); the others are the daemon's codes
 * for the same thing, given where the gateway answers in its stead.
 */
export type DaemonRelayErrorCode = Extract<
  DaemonWireErrorCode,
  'invalid_json' | 'invalid_field' | 'invalid_utf8' | 'line_too_large' | 'duplicate_request_id' | 'connection_busy' | 'denied_by_gateway' | 'daemon_unavailable'
>;

/**
 * Why a `denied_by_gateway` refused, in `error.details.rule`, for a client to act on without
 * reading the message: `not_opened` (this page connection has not opened the session),
 * `opening` (its open is not answered yet), `other_page` (another page owns it),
 * `session_limit`, `admin_only` (drain, host-wide status), `unknown_operation` (one the gateway
 * cannot judge), `host_tools`, `stored_sessions`.
 */
export type DenialRule = 'not_opened' | 'opening' | 'other_page' | 'session_limit' | 'admin_only' | 'unknown_operation' | 'host_tools' | 'stored_sessions';

/** `error.details` of a gateway refusal: `source` says the gateway refused, not the daemon. */
export interface RefusalDetails {
  source: typeof GATEWAY_INSTANCE_ID;
  [field: string]: unknown;
}

/** A daemon response that is a refusal of the gateway's own. */
export interface DaemonErrorResponse extends Pick<DaemonResponse, 'protocolVersion' | 'kind' | 'requestId' | 'hostInstanceId'> {
  ok: false;
  error: DaemonWireError & { code: DaemonRelayErrorCode; details: RefusalDetails };
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
export function gatewayError(
  ids: CommandIds,
  hostInstanceId: string,
  code: DaemonRelayErrorCode,
  message: string,
  retryable = false,
  details: Record<string, unknown> = {},
): DaemonErrorResponse {
  return {
    protocolVersion: ids.protocolVersion ?? DAEMON_PROTOCOL_VERSION,
    kind: 'response',
    requestId: ids.requestId ?? UNKNOWN_REQUEST_ID,
    hostInstanceId,
    ok: false,
    error: { code, message: `aicc gateway: ${message}`, retryable, details: { ...details, source: GATEWAY_INSTANCE_ID } },
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

/** A frame read as one line for the daemon, or the daemon's answer to such a line and whether the connection then ends. */
export type ReadFrame =
  | { ok: true; line: string; record: Record<string, unknown>; ids: CommandIds }
  | { ok: false; code: 'invalid_json' | 'invalid_field' | 'line_too_large'; message: string; details?: Record<string, unknown>; ends: boolean };

const RAW_LINE_BREAK = /[\r\n]/g;

/**
 * Reads one browser frame (not an empty one: the relay skips those, as the daemon skips an empty
 * line). A JSON text holds a raw CR or LF only as whitespace between tokens (never inside a
 * string), so each becomes a space: the line keeps its length and meaning, cannot split in two on
 * the daemon's side, and is otherwise forwarded byte for byte.
 */
export function readFrame(frame: string | Buffer, maxLineBytes: number): ReadFrame {
  if (typeof frame !== 'string')
    return { ok: false, code: 'invalid_json', message: 'pi-daemon records are JSON text; send a text frame, not a binary one', ends: true };
  const bytes = Buffer.byteLength(frame, 'utf8');
  if (bytes > maxLineBytes) {
    return {
      ok: false,
      code: 'line_too_large',
      message: `a record of ${bytes} bytes is over the daemon's line limit of ${maxLineBytes} bytes; send a shorter one`,
      details: { maxLineBytes, actualBytes: bytes },
      ends: true,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    // JSON.parse's message quotes the text, which may hold anything (a pasted key): never repeated.
    return { ok: false, code: 'invalid_json', message: 'not JSON; send one JSON object per text frame', ends: true };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return {
      ok: false,
      code: 'invalid_field',
      message: `command must be an object, not ${what}; send one command object per text frame`,
      details: { field: 'command' },
      ends: false,
    };
  }
  const record = value as Record<string, unknown>;
  return { ok: true, line: frame.replace(RAW_LINE_BREAK, ' '), record, ids: idsOf(record) };
}

export interface DaemonPolicy {
  /** Pages may open sessions stored on the host (modes new/open/continue, paths, agentDir). Default false. */
  storedSessions?: boolean;
}

/** A refusal: what to tell the page, and the rule that refused (error.details.rule). */
export interface Denial {
  rule: DenialRule;
  message: string;
}

/** The gateway's policy on what a page may open: why the command is refused, or undefined to go on. */
export function checkPolicy(record: Record<string, unknown>, policy: DaemonPolicy = {}): Denial | undefined {
  if (record.operation !== 'open') return undefined;
  const payload = record.payload;
  if (payload === null || typeof payload !== 'object') return undefined;
  const open = payload as Record<string, unknown>;
  const resources = open.resources;
  if (resources !== null && typeof resources === 'object' && 'tools' in resources && (resources as Record<string, unknown>).tools !== 'none') {
    return {
      rule: 'host_tools',
      message:
        'payload.resources.tools must be "none": a page may not give the model the host\'s filesystem tools; a character acts through its game\'s AICC tools',
    };
  }
  if (policy.storedSessions === true) return undefined;
  const session = open.session !== null && typeof open.session === 'object' ? (open.session as Record<string, unknown>) : {};
  const stored = ['path', 'sessionDir'].find((name) => name in session) ?? ('agentDir' in open ? 'agentDir' : undefined);
  if (session.mode !== 'memory' || stored !== undefined) {
    const what =
      stored === undefined ? `payload.session.mode ${JSON.stringify(session.mode)}` : stored === 'agentDir' ? 'payload.agentDir' : `payload.session.${stored}`;
    return {
      rule: 'stored_sessions',
      message: `${what}: a page may open memory sessions only (session.mode "memory", no path, sessionDir or agentDir); start the gateway with --daemon-stored-sessions to let pages use the host's stored sessions`,
    };
  }
  return undefined;
}

function idsOf(record: Record<string, unknown>): CommandIds {
  const ids: CommandIds = {};
  // Echoed only when the schema would accept them, so a refusal is itself a valid record.
  if (typeof record.requestId === 'string' && record.requestId.length >= 1 && record.requestId.length <= 512) ids.requestId = record.requestId;
  if (typeof record.protocolVersion === 'string' && negotiateDaemonVersion([record.protocolVersion]) !== undefined)
    ids.protocolVersion = record.protocolVersion;
  return ids;
}
