// What a command of `aicc` reads and writes: the process's streams, or a test's.

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** Lines typed by the user (for `demo --play`). */
  stdin?: AsyncIterable<string>;
}
