// Writes a capsule's traffic as a recording while it runs, checking each line as it is written.

import type { Capsule } from '../runtime/capsule.js';
import { entryProblem, formatLine, type RecordingEnd, type RecordingEntry, type RecordingHeader } from './recording.js';

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

  /** Stops listening and writes the end line: until then the recording reads as cut short. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    this.emit({ end: true, tick: this.capsule.tick, entries: this.lines - 1 });
  }

  private emit(value: RecordingHeader | RecordingEntry | RecordingEnd): void {
    this.lines++;
    this.write(formatLine(value));
  }
}
