// Writes a capsule's traffic as a recording while it runs, checking each line as it is written.
// A host that pilots a character adds what each decision cost (decision()): the recorder cannot see
// the pilot, which lives on the agent's side of the session.

import type { Capsule } from '../runtime/capsule.js';
import {
  decisionProblem,
  entryProblem,
  formatLine,
  type RecordedDecision,
  type RecordedDecisionCost,
  type RecordingEnd,
  type RecordingEntry,
  type RecordingHeader,
} from './recording.js';
import { exchangeProblem, hashProblem, type RecordedExchange, type RecordedHash } from './cassetteLines.js';

export class Recorder {
  /** Lines that failed their check: a bug in the bridge, reported rather than written silently. */
  readonly problems: string[] = [];
  lines = 0;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(
    private readonly capsule: Capsule,
    header: RecordingHeader,
    private readonly write: (line: string) => void,
  ) {
    this.emit(header);
    this.unsubscribe = capsule.on('message', ({ direction, session, message }) => {
      const entry: RecordingEntry = { tick: capsule.tick, at: capsule.clock.now(), dir: direction, character: session.character, message };
      const problem = entryProblem(entry);
      if (problem !== undefined) this.problems.push(`line ${this.lines + 1}: ${problem}`);
      this.emit(entry);
    });
  }

  /**
   * Writes a decision line for `character` at the capsule's tick and clock now (call it as the
   * decision ends: a pilot's `cost` event). Ignored once the recorder has stopped.
   */
  decision(character: string, cost: RecordedDecisionCost): void {
    if (this.stopped) return;
    const line: RecordedDecision = { tick: this.capsule.tick, at: this.capsule.clock.now(), character, decision: cost };
    const problem = decisionProblem(line);
    if (problem !== undefined) this.problems.push(`line ${this.lines + 1}: ${problem}`);
    this.emit(line);
  }

  /** Writes an exchange line (a model turn that settled now: the cassette). Ignored once stopped. */
  exchange(character: string, exchange: RecordedExchange['exchange']): void {
    if (this.stopped) return;
    this.check({ tick: this.capsule.tick, at: this.capsule.clock.now(), character, exchange }, exchangeProblem);
  }

  /** Writes a hash line: the world's state hash at the tick now. Ignored once stopped. */
  hash(hash: string): void {
    if (this.stopped) return;
    this.check({ tick: this.capsule.tick, at: this.capsule.clock.now(), hash }, hashProblem);
  }

  private check<T extends RecordedExchange | RecordedHash>(line: T, problem: (line: unknown) => string | undefined): void {
    const issue = problem(line);
    if (issue !== undefined) this.problems.push(`line ${this.lines + 1}: ${issue}`);
    this.emit(line);
  }

  /** Stops listening and writes the end line: until then the recording reads as cut short. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    this.emit({ end: true, tick: this.capsule.tick, entries: this.lines - 1 });
  }

  private emit(value: RecordingHeader | RecordingEntry | RecordedDecision | RecordedExchange | RecordedHash | RecordingEnd): void {
    this.lines++;
    this.write(formatLine(value));
  }
}
