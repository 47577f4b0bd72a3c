#!/usr/bin/env node
// The `aicc` command. Each subcommand lives in its own module; this file only dispatches.

import { createInterface } from 'node:readline';
import { main } from './main.js';

// A reader that stops early (`aicc demo | head`) closes the pipe: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// Read standard input only when a command asks for it (`demo --play`): an open reader would keep
// the process alive.
const stdin = {
  [Symbol.asyncIterator]: () => createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator](),
};
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin });
process.stdin.unref?.();
