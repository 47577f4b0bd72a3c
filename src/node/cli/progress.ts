// A one-line progress bar for long headless runs, drawn on stderr so stdout stays clean for results
// (`--json` output piped to a file). Drawn only on a terminal: in a log or a CI capture the carriage
// returns would only be noise, so there it does nothing. Long runs (sweeps) ask for an ETA, from
// the rate of this run's own work: a resumed sweep's episodes already done do not count as speed.

/** What the bar needs of a stream; process.stderr is one, and so is a test's fake. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  /** Terminal width, when known; the bar shrinks to fit. */
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressBar {
  (done: number, total: number): void;
  /** Clears the line so the next output starts clean. */
  finish(): void;
}

export interface ProgressBarOptions {
  /** Wall time in ms, for the rate. Default `performance.now`. */
  now?: () => number;
  /** Also show the time left at the current rate (`ETA 1m05s`). Default false. */
  eta?: boolean;
  /** Work already done before this run (a resumed sweep's episodes): left out of the rate. Default 0. */
  baseline?: number;
}

const BAR_WIDTH = 30;
/** Erase the line and return to its start (ANSI "erase in line"). */
const CLEAR_LINE = '\r\x1b[2K';

/** `(done, total) => void` drawing `[#####-----]  50%  5000/10000  1234/s` (and `ETA 4s`) on a TTY; a no-op elsewhere. */
export function progressBar(stream: ProgressStream = process.stderr, options: ProgressBarOptions = {}): ProgressBar {
  if (stream.isTTY !== true) return Object.assign(() => {}, { finish: () => {} });
  const now = options.now ?? (() => performance.now());
  const started = now();
  const baseline = options.baseline ?? 0;
  let drawn = false;
  const draw = (done: number, total: number): void => {
    const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    const seconds = (now() - started) / 1000;
    const perSecond = seconds > 0 ? (done - baseline) / seconds : 0;
    const rate = seconds > 0 ? `${Math.round(perSecond)}/s` : '';
    const eta = options.eta === true && perSecond > 0 && done < total ? `  ETA ${duration((total - done) / perSecond)}` : '';
    const tail = `${String(Math.floor(fraction * 100)).padStart(3)}%  ${done}/${total}  ${rate}${eta}`.trimEnd();
    // Keep the whole line inside the terminal, or each redraw would wrap onto a new line.
    const width = Math.max(0, Math.min(BAR_WIDTH, (stream.columns ?? 80) - tail.length - 4));
    const filled = Math.round(fraction * width);
    const bar = width > 0 ? `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` : '';
    stream.write(`${CLEAR_LINE}${bar}${tail}`);
    drawn = true;
  };
  return Object.assign(draw, {
    finish: () => {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  });
}

/** Seconds as `42s`, `3m05s` or `2h07m`: short, and steady in width as it counts down. */
function duration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  const minutes = Math.ceil(whole / 60);
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
