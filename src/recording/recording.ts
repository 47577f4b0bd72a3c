// The recording format: NDJSON, one header line, then one line per AICC message of every session,
// in the order the capsule took them in or sent them out, then an end line (docs/RECORDING.md).
// Among the messages a run with a pilot also writes what each of its decisions cost (a decision
// line): not a message, so replay, which re-runs messages, passes over it.

import type { DecisionCost } from '../runtime/decisionCost.js';
import { checkMessage } from '../protocol/messageCheck.js';
import type { AiccMessage, JsonObject } from '../protocol/messages.js';
import { exchangeProblem, hashProblem, type RecordedExchange, type RecordedHash } from './cassetteLines.js';

// 2: the end line. A recording of format 1 had none, so nothing told a truncated one from a whole one.
export const RECORDING_FORMAT = 'aicc-recording/2';

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

/**
 * What one decision of a pilot (a chat model playing the character) cost, as the pilot measured it
 * on its clock from the moment the prompt was sent (src/agent/pilot/costs.ts, DecisionCost). Optional
 * fields are absent when not measured or not reported — never guessed.
 */
export type RecordedDecisionCost = DecisionCost;

/** A decision line: written when the decision ended, at the capsule's tick and clock then. */
export interface RecordedDecision {
  tick: number;
  at: number;
  character: string;
  decision: RecordedDecisionCost;
}

/**
 * The last line, written when the recorder stops. A recording without it was cut short: the run was
 * killed, or the file truncated. Its count finds lines lost before it.
 */
export interface RecordingEnd {
  end: true;
  /** The capsule's tick when the recording stopped. */
  tick: number;
  /** The lines between the header and this line: messages, decision, exchange and hash lines. */
  entries: number;
}

export interface Recording {
  header: RecordingHeader;
  /** The messages, in order: what replay re-runs. */
  entries: RecordingEntry[];
  /** The decision lines, in order (none for a run without a pilot): replay passes over them. */
  decisions: RecordedDecision[];
  /** The model exchanges (the cassette), in order, each with its line number; none for a run without a model backend. */
  exchanges: Array<RecordedExchange & { line: number }>;
  /** The state hashes, in order; none unless the run wrote them. */
  hashes: RecordedHash[];
  /**
   * The end line; for a recording read with `{ cutShort: 'up-to-last-whole-line' }` that had none,
   * one made for its last whole line (its tick and count), and `cutShort` says so.
   */
  end: RecordingEnd;
  /** Set when the file was cut short and read up to its last whole line: where it stops, and how. */
  cutShort?: { line: number; reason: string };
}

export interface ParseRecordingOptions {
  /**
   * `'refuse'` (the default): a recording cut short is a RecordingError. `'up-to-last-whole-line'`:
   * a killed run's recording (no end line, or a last line cut off mid-way) is read up to its last
   * whole line, and `cutShort` names where it stops — every whole line is still checked.
   */
  cutShort?: 'refuse' | 'up-to-last-whole-line';
}

/** A recording that breaks the format, with the line (1-based) where it first does. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    readonly line: number,
    readonly reason: string,
    /** The file is sound up to this line but stops there: a killed run or a truncated copy (parseRecording's `cutShort` option reads it). */
    readonly cutShort = false,
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

const DECISION_ENDS: ReadonlySet<unknown> = new Set(['replied', 'send_failed', 'reply_failed', 'aborted', 'stopped']);
/** A decision's optional figures: ms, token counts and dollars, each a finite number >= 0 (tokens whole). */
const DECISION_FIGURES: Readonly<Record<string, 'number' | 'integer'>> = {
  firstTokenMs: 'number',
  replyMs: 'number',
  firstToolCallMs: 'number',
  inputTokens: 'integer',
  outputTokens: 'integer',
  cachedInputTokens: 'integer',
  costUsd: 'number',
  retries: 'integer',
};
const DECISION_FIELDS: ReadonlySet<string> = new Set(['decision', 'startedAt', 'totalMs', 'calls', 'ended', ...Object.keys(DECISION_FIGURES)]);

/** Checks one decision line; undefined when it is sound, otherwise what is wrong with it. */
export function decisionProblem(line: unknown): string | undefined {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return 'a decision line must be a JSON object';
  const l = line as Record<string, unknown>;
  const extra = Object.keys(l).find((key) => key !== 'tick' && key !== 'at' && key !== 'character' && key !== 'decision');
  if (extra !== undefined) return `a decision line has tick, at, character and decision only, not ${JSON.stringify(extra)}`;
  if (!Number.isInteger(l['tick']) || (l['tick'] as number) < 0) return 'tick must be an integer >= 0';
  if (typeof l['at'] !== 'number' || !Number.isFinite(l['at'])) return 'at must be a number of ms';
  if (typeof l['character'] !== 'string' || l['character'].length === 0) return 'character must name a character';
  const d = l['decision'];
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return 'decision must be an object';
  const cost = d as Record<string, unknown>;
  const unknown = Object.keys(cost).find((key) => !DECISION_FIELDS.has(key));
  if (unknown !== undefined) return `decision.${unknown} is not a field of a decision line (see docs/RECORDING.md)`;
  if (!Number.isInteger(cost['decision']) || (cost['decision'] as number) < 1) return 'decision.decision must be an integer >= 1';
  if (typeof cost['startedAt'] !== 'number' || !Number.isFinite(cost['startedAt'])) return 'decision.startedAt must be a number of ms';
  if (!isFigure(cost['totalMs'], 'number')) return 'decision.totalMs must be a number >= 0';
  if (!isFigure(cost['calls'], 'integer')) return 'decision.calls must be an integer >= 0';
  if (!DECISION_ENDS.has(cost['ended'])) return `decision.ended must be one of ${[...DECISION_ENDS].map((e) => JSON.stringify(e)).join(', ')}`;
  for (const [name, kind] of Object.entries(DECISION_FIGURES)) {
    if (cost[name] !== undefined && !isFigure(cost[name], kind))
      return `decision.${name} must be ${kind === 'integer' ? 'an integer' : 'a number'} >= 0 when present`;
  }
  return undefined;
}

function isFigure(value: unknown, kind: 'number' | 'integer'): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && (kind === 'number' || Number.isInteger(value));
}

export function headerProblem(header: unknown): string | undefined {
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return 'the header must be a JSON object';
  const h = header as Record<string, unknown>;
  if (h['format'] === 'aicc-recording/1')
    return `format "aicc-recording/1" is the older format, with no end line to prove a recording whole; record the run again`;
  if (h['format'] !== RECORDING_FORMAT) return `format must be "${RECORDING_FORMAT}", got ${JSON.stringify(h['format'] ?? null)}`;
  if (typeof h['world'] !== 'string' || h['world'].length === 0) return 'world must name the world builder';
  if (!Number.isInteger(h['seed'])) return 'seed must be an integer';
  if (!Number.isInteger(h['ticks']) || (h['ticks'] as number) < 0) return 'ticks must be an integer >= 0';
  if (h['options'] !== undefined && (h['options'] === null || typeof h['options'] !== 'object' || Array.isArray(h['options'])))
    return 'options must be an object';
  return undefined;
}

/** Checks the end line against what came before it; undefined when it is sound. */
function endProblem(end: Record<string, unknown>, entries: number, lastTick: number): string | undefined {
  if (end['end'] !== true || !Number.isInteger(end['tick']) || !Number.isInteger(end['entries']))
    return 'the end line must be {"end":true,"tick":N,"entries":N}';
  if ((end['tick'] as number) < lastTick) return `the end line's tick ${String(end['tick'])} comes before tick ${lastTick}`;
  if (end['entries'] !== entries) return `the end line counts ${String(end['entries'])} entries, but ${entries} come before it: lines are missing`;
  return undefined;
}

/**
 * Parses and checks a whole recording; throws RecordingError naming the first bad line. A recording
 * cut short (no newline after its last line, or no end line) is one, unless `options.cutShort` asks
 * for it up to its last whole line.
 */
export function parseRecording(text: string, options: ParseRecordingOptions = {}): Recording {
  const lines = text.split('\n');
  // The recorder ends every line with a newline: text after the last one is a line cut off.
  const cut = lines.pop()!;
  if (lines.length === 0 && cut === '') throw new RecordingError(1, 'the recording is empty; expected a header line');
  const cutOff = (): RecordingError =>
    new RecordingError(lines.length + 1, `cut off mid-line: the file ends inside line ${lines.length + 1}, with no newline; the recording was truncated`, true);
  const noEnd = (): RecordingError =>
    new RecordingError(
      lines.length + 1,
      `no end line: the recording stops after line ${lines.length}, cut short (a run that was killed, or a truncated copy)`,
      true,
    );
  if (lines.length === 0) throw new RecordingError(1, 'cut off mid-line: the file ends inside its header line; nothing to read');
  const header = parseLine(lines[0]!, 1);
  const headerIssue = headerProblem(header);
  if (headerIssue !== undefined) throw new RecordingError(1, headerIssue);
  const entries: RecordingEntry[] = [];
  const decisions: RecordedDecision[] = [];
  const exchanges: Recording['exchanges'] = [];
  const hashes: RecordedHash[] = [];
  const sessions = new Map<string, string>();
  let lastTick = 0;
  let end: RecordingEnd | undefined;
  for (let i = 1; i < lines.length; i++) {
    const entry = parseLine(lines[i]!, i + 1);
    if (end !== undefined) throw new RecordingError(i + 1, `a line after the end line (line ${i}): two recordings joined, or lines added`);
    const kind = lineKind(entry);
    const issue =
      kind === 'end'
        ? endProblem(entry as Record<string, unknown>, entries.length + decisions.length + exchanges.length + hashes.length, lastTick)
        : kind === 'decision'
          ? (decisionProblem(entry) ?? decisionOrderProblem(entry as RecordedDecision, lastTick, sessions))
          : kind === 'exchange'
            ? (exchangeProblem(entry) ?? decisionOrderProblem(entry as RecordedExchange, lastTick, sessions))
            : kind === 'hash'
              ? (hashProblem(entry) ??
                ((entry as RecordedHash).tick < lastTick ? `tick ${(entry as RecordedHash).tick} comes after tick ${lastTick}` : undefined))
              : (entryProblem(entry) ?? orderProblem(entry as RecordingEntry, lastTick, sessions));
    if (issue !== undefined) throw new RecordingError(i + 1, issue);
    if (kind === 'end') end = entry as RecordingEnd;
    else if (kind === 'exchange') {
      lastTick = (entry as RecordedExchange).tick;
      exchanges.push({ ...(entry as RecordedExchange), line: i + 1 });
    } else if (kind === 'hash') {
      lastTick = (entry as RecordedHash).tick;
      hashes.push(entry as RecordedHash);
    } else if (kind === 'decision') {
      lastTick = (entry as RecordedDecision).tick;
      decisions.push(entry as RecordedDecision);
    } else {
      lastTick = (entry as RecordingEntry).tick;
      entries.push(entry as RecordingEntry);
    }
  }
  const short = cut !== '' ? cutOff() : end === undefined ? noEnd() : undefined;
  if (short !== undefined && options.cutShort !== 'up-to-last-whole-line') throw short;
  const counted = entries.length + decisions.length + exchanges.length + hashes.length;
  return {
    header: header as RecordingHeader,
    entries,
    decisions,
    exchanges,
    hashes,
    end: end ?? { end: true, tick: lastTick, entries: counted },
    ...(short !== undefined && { cutShort: { line: short.line, reason: short.reason } }),
  };
}

/** Which kind of line a parsed line is, by the field only it has. */
function lineKind(line: unknown): 'end' | 'decision' | 'exchange' | 'hash' | 'message' {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return 'message';
  if ('end' in line) return 'end';
  if ('decision' in line) return 'decision';
  if ('exchange' in line) return 'exchange';
  if ('hash' in line && !('message' in line)) return 'hash';
  return 'message';
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

/** A decision line keeps the ticks in order too, and belongs to a character whose session has opened. */
function decisionOrderProblem(line: { tick: number; character: string }, lastTick: number, sessions: Map<string, string>): string | undefined {
  if (line.tick < lastTick) return `tick ${line.tick} comes after tick ${lastTick}`;
  if (!sessions.has(line.character)) return `a decision of ${line.character} before its session_init`;
  return undefined;
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new RecordingError(number, `not JSON (${(error as Error).message})`);
  }
}

export function formatLine(value: RecordingHeader | RecordingEntry | RecordedDecision | RecordedExchange | RecordedHash | RecordingEnd): string {
  return `${JSON.stringify(value)}\n`;
}
