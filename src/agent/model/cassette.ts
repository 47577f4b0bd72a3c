// Model cassettes: every model turn of a run, kept — what was sent (hashed, and whole unless the
// user opts out), what came back (the reply, a failure, or nothing before the deadline), and the
// ticks it was sent and answered at — so that the run can be played again with zero model calls.
// `recordingTurn` wraps a live turn and hands each exchange to a sink (the recording); `Cassette`
// is a turn that answers from the exchanges, at the recorded ticks, and names the first request
// that differs from the recorded one (a changed briefing, digest, tool list, or library version).

import { stateHash } from '../../research/stateHash.js';
import type { JsonValue } from '../../research/world.js';
import type { ModelReply, ModelRequest, ModelTurn } from './modelPort.js';

/** One model turn as a cassette keeps it. */
export interface ModelExchange {
  /** The character whose model it was. */
  character: string;
  /** 1, 2, … per character. */
  n: number;
  /** requestHash(request). */
  hash: string;
  /** The tick the request was sent at. */
  sentTick: number;
  /** The tick the model began to answer at (its first streamed delta), when it streamed. */
  tokenTick?: number;
  /** The request, whole (absent when the user opted out: then only the hash is compared). */
  request?: ModelRequest;
  /** What came back: the model's message (a failed request is one too, stopReason "error")… */
  reply?: ModelReply;
  /** …or the error the turn threw… */
  error?: string;
  /** …or nothing: the turn was aborted (the pilot's abort, the gate's deadline) before an answer. */
  aborted?: true;
}

/** The canonical hash of a request: object keys sorted, so equal requests hash equal on any machine. */
export function requestHash(request: ModelRequest): string {
  return stateHash(request as unknown as JsonValue);
}

export interface RecordingTurnOptions {
  character: string;
  /** The tick now (the capsule's). */
  tick(): number;
  /** Keep requests whole (default true); false keeps only their hashes. */
  keepRequests?: boolean;
  /** Gets each exchange once it has settled (answered, failed, or aborted). */
  record(exchange: ModelExchange): void;
}

/** `turn`, with every exchange handed to `options.record` as it settles. */
export function recordingTurn(turn: ModelTurn, options: RecordingTurnOptions): ModelTurn {
  let n = 0;
  return async (request, turnOptions) => {
    const base = {
      character: options.character,
      n: ++n,
      hash: requestHash(request),
      sentTick: options.tick(),
      ...(options.keepRequests !== false && { request: structuredClone(request) }),
    };
    let tokenTick: number | undefined;
    const onToken = (): void => {
      tokenTick ??= options.tick();
      turnOptions.onToken();
    };
    const settled = (): ModelExchange => ({ ...base, ...(tokenTick !== undefined && { tokenTick }) });
    try {
      const reply = await turn(request, { ...turnOptions, onToken });
      options.record(turnOptions.signal.aborted ? { ...settled(), aborted: true } : { ...settled(), reply });
      return reply;
    } catch (error) {
      options.record(
        turnOptions.signal.aborted ? { ...settled(), aborted: true } : { ...settled(), error: error instanceof Error ? error.message : String(error) },
      );
      throw error;
    }
  };
}

/** Where a replayed request first differs from the recorded one. */
export interface Divergence {
  character: string;
  /** The exchange (1-based, per character) and the tick it was sent at in the replay. */
  n: number;
  tick: number;
  /** The recording's line holding the exchange, when known. */
  line?: number;
  /** What differs: `message 3 (user)`, `tools`, `system prompt`, or `a request the recording does not have`. */
  where: string;
  /** A short view of the difference: the recorded text and the replayed one around their first differing character. */
  recorded: string;
  replayed: string;
}

/** A recorded exchange with the recording's line it came from. */
export type CassetteEntry = ModelExchange & { settledTick: number; line?: number };

/**
 * A turn that answers from recorded exchanges. Each request must hash as recorded; the answer is
 * held until the capsule reaches the tick it came at (`release(tick)`, called by the replay's
 * driver after each tick), then given as it was: the reply, the error, or — for an aborted
 * exchange — nothing until the request is aborted again. The first request that differs is
 * kept in `divergence`, and every turn after it fails.
 */
export class Cassette {
  private readonly queues = new Map<string, CassetteEntry[]>();
  private readonly waiting: Array<{ tick: number; release: () => void }> = [];
  divergence: Divergence | undefined;
  /** Model turns answered from the cassette. */
  served = 0;
  /** The last tick released: an answer due then or before is given at once. */
  private released = -1;

  constructor(entries: readonly CassetteEntry[]) {
    for (const entry of entries) {
      let queue = this.queues.get(entry.character);
      if (queue === undefined) this.queues.set(entry.character, (queue = []));
      queue.push(entry);
    }
  }

  /** The turn for `character`'s model. */
  turn(character: string, tick: () => number): ModelTurn {
    let n = 0;
    return async (request, { signal, onToken }) => {
      n++;
      const entry = this.queues.get(character)?.shift();
      if (this.divergence !== undefined) throw new Error(`cassette: replay stopped at the first divergence (${this.divergence.where})`);
      const problem = entry === undefined ? undefined : difference(entry, request);
      if (entry === undefined || problem !== undefined) {
        this.divergence = {
          character,
          n,
          tick: tick(),
          ...(entry?.line !== undefined && { line: entry.line }),
          ...(problem ?? {
            where: 'a request the recording does not have',
            recorded: '(nothing)',
            replayed: clipText(JSON.stringify(request.messages.at(-1) ?? null)),
          }),
        };
        throw new Error(`cassette: the request differs from the recording at ${this.divergence.where}`);
      }
      // The first token when it came, then the answer when it came.
      if (entry.tokenTick !== undefined) {
        await this.until(entry.tokenTick, signal);
        if (!signal.aborted) onToken();
      }
      await this.until(entry.settledTick, signal);
      this.served++;
      if (entry.aborted === true) return new Promise<ModelReply>((_, reject) => whenAborted(signal, () => reject(new Error('aborted'))));
      if (entry.error !== undefined) throw new Error(entry.error);
      return structuredClone(entry.reply!);
    };
  }

  /**
   * Releases the answers due at `tick` or before, in the order they were asked for, each in a task
   * of its own — as a live model's answers arrive (each response its own I/O callback), so what
   * one answer sets off runs before the next answer comes, and the replay writes its lines in the
   * recorded order. Resolves once every due answer has been given.
   */
  async release(tick: number): Promise<void> {
    this.released = Math.max(this.released, tick);
    for (;;) {
      const wait = this.waiting.find((each) => each.tick <= tick);
      if (wait === undefined) return;
      this.waiting.splice(this.waiting.indexOf(wait), 1);
      wait.release();
      await nextTask();
    }
  }

  /** Exchanges of the recording not asked for by the replay. */
  get unused(): number {
    return [...this.queues.values()].reduce((sum, queue) => sum + queue.length, 0);
  }

  private until(tick: number, signal: AbortSignal): Promise<void> {
    if (tick <= this.released) return Promise.resolve();
    return new Promise((resolve) => {
      const wait = { tick, release: resolve };
      this.waiting.push(wait);
      whenAborted(signal, () => {
        const at = this.waiting.indexOf(wait);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve();
      });
    });
  }
}

/** A macrotask later (setImmediate in Node; a zero timeout elsewhere). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => (typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate(resolve) : setTimeout(resolve, 0)));
}

function whenAborted(signal: AbortSignal, then: () => void): void {
  if (signal.aborted) then();
  else signal.addEventListener('abort', then, { once: true });
}

/** Where `request` differs from the recorded one; undefined when it hashes the same. */
function difference(entry: ModelExchange, request: ModelRequest): Omit<Divergence, 'character' | 'n' | 'tick' | 'line'> | undefined {
  if (requestHash(request) === entry.hash) return undefined;
  const recorded = entry.request;
  if (recorded === undefined) return { where: 'the request (the recording kept only its hash)', recorded: entry.hash, replayed: requestHash(request) };
  if (recorded.systemPrompt !== request.systemPrompt)
    return { where: 'the system prompt', ...aroundFirstDifference(recorded.systemPrompt, request.systemPrompt) };
  const count = Math.max(recorded.messages.length, request.messages.length);
  for (let i = 0; i < count; i++) {
    const a = JSON.stringify(recorded.messages[i] ?? null);
    const b = JSON.stringify(request.messages[i] ?? null);
    if (a !== b) return { where: `message ${i + 1} (${request.messages[i]?.role ?? recorded.messages[i]?.role})`, ...aroundFirstDifference(a, b) };
  }
  return { where: 'the tools', ...aroundFirstDifference(JSON.stringify(recorded.tools), JSON.stringify(request.tools)) };
}

/** The two texts around their first differing character, ±`span` characters. */
export function aroundFirstDifference(a: string, b: string, span = 40): { recorded: string; replayed: string } {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - span);
  const cut = (text: string): string => `${from > 0 ? '…' : ''}${text.slice(from, at + span)}${text.length > at + span ? '…' : ''}`;
  return { recorded: cut(a), replayed: cut(b) };
}

function clipText(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
