import { readFileSync } from 'node:fs';
import { compileSchemasCommand } from './compileSchemasCommand.js';
import { demoCommand } from './demoCommand.js';
import { replayCommand, validateCommand } from './recordingCommands.js';
import { userMessage } from './userMessage.js';

import type { CliIo } from './cliIo.js';

export type { CliIo } from './cliIo.js';

const USAGE = `aicc — the aicc-capsule command line

Usage: aicc <command> [options]

Commands:
  demo              the village of Millbrook, headless, its villagers driven by agents
  replay            re-run a recorded world with no agent and compare every message
  validate          check a recording: every line, and that it is whole (not cut short)
  compile-schemas   precompile tool schemas into CSP-safe validators (no ajv compiler in your bundle)
  gateway           join browser pages to the pi coding agent (pi-peers 1.0 or pi-daemon v2, over WebSocket)
  conformance       check an aicc/0.1 bridge (a ws:// URL or a module), level by level
  sweep             episodes of a world over seeds and parameters, on worker threads (or BullMQ with --queue)
  worker            run the episodes of sweeps queued on Redis (BullMQ), on this machine
  eval              agents compared on a world over seeds: success, cost, latency, rule-breaking
  report            an eval's HTML report (or summary) from its results file
  serve             a world's episodes for remote agents: Gymnasium, PettingZoo, OpenEnv, HTTP

Options:
  -h, --help        show this help, or a command's help with \`aicc <command> --help\`
  -v, --version     print the version

Exit codes: 0 success, 1 failure of the command, 2 bad usage or a missing file; each command's
--help lists its own.
`;

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  demo: demoCommand,
  replay: replayCommand,
  validate: validateCommand,
  'compile-schemas': compileSchemasCommand,
  // Loaded on demand: only the gateway needs `ws`.
  gateway: (argv, io) => import('./gatewayCommand.js').then((m) => m.gatewayCommand(argv, io)),
  conformance: (argv, io) => import('./conformanceCommand.js').then((m) => m.conformanceCommand(argv, io)),
  // Loaded on demand: worker threads, and bullmq only with --queue.
  sweep: (argv, io) => import('./sweepCommand.js').then((m) => m.sweepCommand(argv, io)),
  // Loaded on demand: worker threads, pi-ai for model agents, the charting libraries for reports.
  eval: (argv, io) => import('./evalCommand.js').then((m) => m.evalCommand(argv, io)),
  report: (argv, io) => import('./reportCommand.js').then((m) => m.reportCommand(argv, io)),
  // Loaded on demand: only the server needs `ws`.
  serve: (argv, io) => import('./serveCommand.js').then((m) => m.serveCommand(argv, io)),
  // Loaded on demand: only `aicc worker` needs bullmq and ioredis (optional peer dependencies).
  worker: (argv, io) => import('./workerCommand.js').then((m) => m.workerCommand(argv, io)),
};

/** Runs one `aicc` invocation and resolves with its exit code; never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (run === undefined) {
    io.stderr.write(`aicc: unknown command "${command}"; run \`aicc --help\` for the list\n`);
    return 2;
  }
  try {
    return await run(rest, io);
  } catch (error) {
    io.stderr.write(`aicc ${command}: ${userMessage(error)}\n`);
    return 1;
  }
}

/** This package's version: the first package.json above this file that is ours (installed, the host project's sits further up). */
function version(): string {
  for (const path of ['../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'aicc-capsule' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // Try the next location: the source tree and the built dist/ sit at different depths.
    }
  }
  return 'unknown';
}
