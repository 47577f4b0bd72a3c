// How the simulated pi-daemon reads one line, before any session is involved: the refusals of the
// line itself and of a command it cannot read in full, as pi-daemon 0.3.3 makes them (codes,
// details, whether the connection then ends, and which protocolVersion the answer carries).

import type { Frame } from '../../src/protocol/codec.js';
import { validateDaemonCommand } from '../../src/pi/generated/daemon-validators.js';
import { DAEMON_OPERATIONS, type DaemonCommand } from '../../src/pi/daemonProtocol.js';
import { HOST_DEFAULT_VERSION } from './daemonSimRecords.js';

export interface SimFailure {
  code: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

export type LineReading =
  /** A v2 command, read in full. */
  | { kind: 'command'; command: DaemonCommand; record: Record<string, unknown> }
  /** A 1.x command: the simulator answers its handshake only. */
  | { kind: 'v1'; requestId: string | undefined; version: string; record: Record<string, unknown> }
  /**
   * Refused. `version`: what the answer says (the host's default "1.0" unless it read the
   * command's); `ends`: the host then ends the connection; `record`: the JSON object, when it was one.
   */
  | { kind: 'refused'; failure: SimFailure; requestId: string | undefined; version: string; ends: boolean; record?: Record<string, unknown> };

const OPERATIONS: ReadonlySet<string> = new Set(DAEMON_OPERATIONS);

export function lineText(frame: Frame): string {
  return typeof frame === 'string' ? frame : frame instanceof Uint8Array ? new TextDecoder().decode(frame) : JSON.stringify(frame);
}

export function readLine(text: string, maxLineBytes: number): LineReading {
  const refused = (
    failure: SimFailure,
    more: { requestId?: string | undefined; version?: string; ends?: boolean; record?: Record<string, unknown> } = {},
  ): LineReading => ({
    kind: 'refused',
    failure,
    requestId: more.requestId,
    version: more.version ?? HOST_DEFAULT_VERSION,
    ends: more.ends === true,
    ...(more.record !== undefined && { record: more.record }),
  });
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > maxLineBytes)
    return refused(
      { code: 'line_too_large', message: 'NDJSON line exceeds the configured byte limit', details: { maxLineBytes, actualBytes: bytes } },
      { ends: true },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused({ code: 'invalid_json', message: 'NDJSON line is not valid JSON' }, { ends: true });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return refused({ code: 'invalid_field', message: 'command must be an object', details: { field: 'command' } });
  const record = value as Record<string, unknown>;
  const id = record['requestId'];
  const requestId = typeof id === 'string' && id.length >= 1 && id.length <= 128 ? id : undefined;
  const version = record['protocolVersion'];
  if (typeof version !== 'string')
    return refused({ code: 'invalid_field', message: 'protocolVersion must be a string', details: { field: 'protocolVersion' } }, { requestId, record });
  if (!/^\d+\.\d+$/.test(version))
    return refused({ code: 'invalid_protocol_version', message: 'protocolVersion must be <major>.<minor>' }, { requestId, record });
  const major = version.split('.')[0];
  if (major === '1') return { kind: 'v1', requestId, version, record };
  if (major !== '2')
    return refused(
      { code: 'incompatible_protocol', message: `unsupported protocol major ${major}`, details: { supported: HOST_DEFAULT_VERSION, received: version } },
      { requestId, version, ends: true, record },
    );
  const operation = String(record['operation']);
  if (!OPERATIONS.has(operation))
    return refused({ code: 'unknown_operation', message: `unknown operation: ${operation}`, details: { operation } }, { requestId, version, record });
  if (!validateDaemonCommand(record)) {
    const error = validateDaemonCommand.errors?.[0];
    return refused(
      { code: 'invalid_field', message: `${error?.instancePath ?? ''} ${error?.message ?? 'invalid'}`.trim(), details: { field: error?.instancePath ?? '' } },
      { requestId, version, record },
    );
  }
  return { kind: 'command', command: record as unknown as DaemonCommand, record };
}
