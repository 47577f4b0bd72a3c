// pi-daemon protocol v2 records as the gateway's daemon relay reads and writes them
// (schemas/pi-daemon-protocol-v2.schema.json): turning a browser's frame into one NDJSON line, the
// one policy the gateway adds, and the response shape of the gateway's own refusals.
//
// What the relay checks, and why no more: a frame must be one JSON object of at most the daemon's
// line limit (else `invalid_json` / `line_too_large`, then a close — what the daemon itself does
// with such a line). The command envelope and each operation's payload are left to the daemon: it
// is the authority on v2, answers a bad command with a precise code (`invalid_field` with details,
// `unknown_operation`, `incompatible_protocol`) and keeps the connection, and a second check here
// would refuse operations a newer 2.x daemon accepts. The one field the gateway reads is `open`'s
// `payload.resources.tools`: a page may not hand the model the host's filesystem tools.

/** The protocol version the gateway's own records carry when the browser's gives none usable. */
export const DAEMON_PROTOCOL_VERSION = '2.0';
/** hostInstanceId of a record the gateway made itself, so it is never mistaken for the daemon's. */
export const GATEWAY_INSTANCE_ID = 'aicc-gateway';

/** Codes of the gateway's own refusals; the daemon's codes pass through untouched. */
export type DaemonRelayErrorCode = 'invalid_json' | 'line_too_large' | 'denied_by_gateway' | 'daemon_unavailable';

export interface DaemonErrorResponse {
  protocolVersion: string;
  kind: 'response';
  requestId?: string;
  hostInstanceId: string;
  ok: false;
  error: { code: DaemonRelayErrorCode; message: string; retryable: boolean; details: { source: typeof GATEWAY_INSTANCE_ID } };
}

/** What the browser's command said about itself, for answering it. */
export interface CommandIds {
  requestId?: string;
  protocolVersion?: string;
}

/** A refusal made by the gateway, shaped like a daemon response. Its message starts with "aicc gateway:". */
export function gatewayError(ids: CommandIds, code: DaemonRelayErrorCode, message: string, retryable = false): DaemonErrorResponse {
  const response: DaemonErrorResponse = {
    protocolVersion: ids.protocolVersion ?? DAEMON_PROTOCOL_VERSION,
    kind: 'response',
    hostInstanceId: GATEWAY_INSTANCE_ID,
    ok: false,
    error: { code, message: `aicc gateway: ${message}`, retryable, details: { source: GATEWAY_INSTANCE_ID } },
  };
  if (ids.requestId !== undefined) response.requestId = ids.requestId;
  return response;
}

/** A frame read as one line for the daemon, or the refusal that ends the connection. */
export type ReadFrame = { ok: true; line: string; record: Record<string, unknown>; ids: CommandIds } | { ok: false; response: DaemonErrorResponse };

const RAW_LINE_BREAK = /[\r\n]/g;

/**
 * Reads one browser frame. A JSON text holds a raw CR or LF only as whitespace between tokens (never
 * inside a string), so each becomes a space: the line keeps its length and meaning, cannot split in
 * two on the daemon's side, and is otherwise forwarded byte for byte.
 */
export function readFrame(frame: string | Buffer, maxLineBytes: number): ReadFrame {
  if (typeof frame !== 'string') {
    return { ok: false, response: gatewayError({}, 'invalid_json', 'pi-daemon records are JSON text; send a text frame, not a binary one') };
  }
  const bytes = Buffer.byteLength(frame, 'utf8');
  if (bytes > maxLineBytes) {
    return { ok: false, response: gatewayError({}, 'line_too_large', `a record of ${bytes} bytes is over the daemon's line limit of ${maxLineBytes} bytes; send a shorter one`) };
  }
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch (error) {
    return { ok: false, response: gatewayError({}, 'invalid_json', `not JSON (${error instanceof Error ? error.message : String(error)}); send one JSON object per text frame`) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, response: gatewayError({}, 'invalid_json', 'a record must be a JSON object; send one command object per text frame') };
  }
  const record = value as Record<string, unknown>;
  return { ok: true, line: frame.replace(RAW_LINE_BREAK, ' '), record, ids: idsOf(record) };
}

/** The gateway's policy on a command the daemon would otherwise take: a refusal, or undefined to forward it. */
export function checkPolicy(record: Record<string, unknown>, ids: CommandIds): DaemonErrorResponse | undefined {
  if (record.operation !== 'open') return undefined;
  const payload = record.payload;
  if (payload === null || typeof payload !== 'object') return undefined;
  const resources = (payload as Record<string, unknown>).resources;
  if (resources === null || typeof resources !== 'object' || !('tools' in resources)) return undefined;
  if ((resources as Record<string, unknown>).tools === 'none') return undefined;
  return gatewayError(
    ids,
    'denied_by_gateway',
    'payload.resources.tools must be "none": a page may not give the model the host\'s filesystem tools; a character acts through its game\'s AICC tools',
  );
}

function idsOf(record: Record<string, unknown>): CommandIds {
  const ids: CommandIds = {};
  // Echoed only when the schema would accept them, so a refusal is itself a valid record.
  if (typeof record.requestId === 'string' && record.requestId.length >= 1 && record.requestId.length <= 512) ids.requestId = record.requestId;
  if (typeof record.protocolVersion === 'string' && /^2\.[0-9]+$/.test(record.protocolVersion)) ids.protocolVersion = record.protocolVersion;
  return ids;
}
