// The recording format: NDJSON, one header line, then one line per AICC message of every session,
// in the order the capsule took them in or sent them out (docs/RECORDING.md).

import { checkMessage } from '../protocol/messageCheck.js';
import type { AiccMessage, JsonObject } from '../protocol/messages.js';

export const RECORDING_FORMAT = 'aicc-recording/1';

/** Line 1: what was run, so that `aicc replay` can build the same world again. */
export interface RecordingHeader {
  format: typeof RECORDING_FORMAT;
  /** The world builder's name, e.g. "village". */
  world: string;
  seed: number;
  ticks: number;
  /** Whatever else the builder needs, as it was given. */
  options?: JsonObject;
}

/** Every other line. `in`: from the agent to the bridge; `out`: from the bridge to the agent. */
export interface RecordingEntry {
  tick: number;
  at: number;
  dir: 'in' | 'out';
  character: string;
  message: AiccMessage;
}

export interface Recording {
  header: RecordingHeader;
  entries: RecordingEntry[];
}

/** A recording that breaks the format, with the line (1-based) where it first does. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

/** Checks one entry; undefined when it is sound, otherwise what is wrong with it. */
export function entryProblem(entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'an entry must be a JSON object';
  const e = entry as Record<string, unknown>;
  if (!Number.isInteger(e['tick']) || (e['tick'] as number) < 0) return 'tick must be an integer >= 0';
  if (typeof e['at'] !== 'number' || !Number.isFinite(e['at'])) return 'at must be a number of ms';
  if (e['dir'] !== 'in' && e['dir'] !== 'out') return 'dir must be "in" or "out"';
  if (typeof e['character'] !== 'string' || e['character'].length === 0) return 'character must name a character';
  const checked = checkMessage(e['message'], e['dir'] === 'in' ? 'agent' : 'bridge');
  return checked.ok ? undefined : `message: ${checked.message}`;
}

export function headerProblem(header: unknown): string | undefined {
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return 'the header must be a JSON object';
  const h = header as Record<string, unknown>;
  if (h['format'] !== RECORDING_FORMAT) return `format must be "${RECORDING_FORMAT}", got ${JSON.stringify(h['format'] ?? null)}`;
  if (typeof h['world'] !== 'string' || h['world'].length === 0) return 'world must name the world builder';
  if (!Number.isInteger(h['seed'])) return 'seed must be an integer';
  if (!Number.isInteger(h['ticks']) || (h['ticks'] as number) < 0) return 'ticks must be an integer >= 0';
  if (h['options'] !== undefined && (h['options'] === null || typeof h['options'] !== 'object' || Array.isArray(h['options']))) return 'options must be an object';
  return undefined;
}

/** Parses and checks a whole recording; throws RecordingError naming the first bad line. */
export function parseRecording(text: string): Recording {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new RecordingError(1, 'the recording is empty; expected a header line');
  const header = parseLine(lines[0]!, 1);
  const headerIssue = headerProblem(header);
  if (headerIssue !== undefined) throw new RecordingError(1, headerIssue);
  const entries: RecordingEntry[] = [];
  const sessions = new Map<string, string>();
  let lastTick = 0;
  for (let i = 1; i < lines.length; i++) {
    const entry = parseLine(lines[i]!, i + 1);
    const issue = entryProblem(entry) ?? orderProblem(entry as RecordingEntry, lastTick, sessions);
    if (issue !== undefined) throw new RecordingError(i + 1, issue);
    lastTick = (entry as RecordingEntry).tick;
    entries.push(entry as RecordingEntry);
  }
  return { header: header as RecordingHeader, entries };
}

/** Ticks never go back, and a character keeps the session its session_init opened. */
function orderProblem(entry: RecordingEntry, lastTick: number, sessions: Map<string, string>): string | undefined {
  if (entry.tick < lastTick) return `tick ${entry.tick} comes after tick ${lastTick}`;
  const known = sessions.get(entry.character);
  if (entry.message.type === 'session_init' && entry.dir === 'out') {
    sessions.set(entry.character, entry.message.session_id);
    return undefined;
  }
  if (known === undefined) return `a message of ${entry.character} before its session_init`;
  return undefined;
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new RecordingError(number, `not JSON (${(error as Error).message})`);
  }
}

export function formatLine(value: RecordingHeader | RecordingEntry): string {
  return `${JSON.stringify(value)}\n`;
}
