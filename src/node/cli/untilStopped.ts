// How a long-running command (serve, the demo server) waits to be stopped: an AbortSignal a test
// passes, or else Ctrl-C or SIGTERM.

/** Resolves when `signal` aborts, or, without one, on SIGINT or SIGTERM; the handlers go with it. */
export function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal !== undefined) {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
