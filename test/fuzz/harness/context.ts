// What a fuzz target is given inside its worker: its budget, and the ways to tell what it saw.

export interface FuzzContext {
  /** How many hostile frames to send. */
  readonly frames: number;
  readonly seed: number;
  /** Counts hostile frames sent; it is also the heartbeat the parent's watchdog waits for. */
  sent(count?: number): void;
  /** A code received at `where`: one not in `documented` is reported. */
  code(code: unknown, documented: ReadonlySet<string>, where: string): void;
  /** Text a peer or a log could show: it must hold none of `secrets`. */
  seen(text: string, where: string): void;
  /** Registers a secret that must never be seen. */
  secret(value: string): void;
  /** Something the target promises that did not hold. */
  problem(what: string): void;
  /** Counts an outcome (`tool_result ok`, `error invalid_input`…): shows how deep the frames reached. */
  tally(outcome: string): void;
  /** Lets timers and I/O run: call between batches so the watchdog hears progress. */
  breathe(): Promise<void>;
}

/** A fuzz target: sends `context.frames` hostile frames, then returns. */
export type FuzzTarget = (context: FuzzContext) => Promise<void>;
