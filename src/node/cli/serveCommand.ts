// `aicc serve WORLD`: one world's episodes for remote agents — an HTTP API in OpenEnv's shape and
// OpenEnv's WebSocket (/ws) — on 127.0.0.1 until SIGINT or SIGTERM. What Python's Gymnasium and
// PettingZoo environments, OpenEnv's client and any HTTP client drive.

import { readArgs, wholeNumber } from './args.js';
import type { CliIo } from './cliIo.js';
import { untilStopped } from './untilStopped.js';
import { userMessage } from './userMessage.js';
import { BUILT_IN_WORLDS, loadWorld } from '../sweep/loadWorld.js';
import { DEFAULT_IDLE_MS, DEFAULT_MAX_EPISODES } from '../serve/episodeTable.js';
import { DEFAULT_MAX_BODY_BYTES } from '../serve/httpApi.js';
import { startServe } from '../serve/serveServer.js';

const HELP = `aicc serve — run a world's episodes for remote agents (Gymnasium, PettingZoo, OpenEnv, HTTP)

Usage: aicc serve WORLD [options]

WORLD is a built-in world (${BUILT_IN_WORLDS.join(', ')}) or a compiled world module (./my-world.js),
as for \`aicc sweep\`. Each episode is a session of its own: POST /reset starts one and answers
its episode_id; POST /step { episode_id, actions }, GET /state?episode_id=…, POST /close.
GET /health, /metadata and /schema describe the world and its faces: tools (an action is a tool
call { tool, input }) and, where the world declares one, vectors (a move's number; observations
are numbers). /ws speaks OpenEnv's WebSocket protocol: one character of a fresh episode per socket.
POST /live { seed, params, agent } sets up a live episode (the world in wall time, its policy
playing the others) whose character an agent plays over plain aicc/0.1 on
/aicc?episode_id=…&agent=…, and resumes on /aicc?episode_id=… after a drop.

Options:
  --port N            the port (default 8000; 0 picks a free one)
  --host ADDR         the address (default 127.0.0.1); any other needs AICC_SERVE_KEY set, which
                      every request then sends as Authorization: Bearer KEY
  --max-episodes N    episodes at once (default ${DEFAULT_MAX_EPISODES}); past it, reset is told capacity_reached
  --idle-s N          an episode without a request for this long is closed (default ${DEFAULT_IDLE_MS / 1000})
  --max-body N        largest request body or WebSocket message, bytes (default ${DEFAULT_MAX_BODY_BYTES})
  -h, --help          this help

Prints "aicc serve: listening on URL" once it listens. Stops on Ctrl-C or SIGTERM.
Exit codes: 0 stopped by a signal, 1 failed (the port taken, the world would not load), 2 bad usage.
`;

export interface ServeRuntime {
  env?: NodeJS.ProcessEnv;
  /** Stops the server when aborted (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

export async function serveCommand(argv: string[], io: CliIo, runtime: ServeRuntime = {}): Promise<number> {
  const parsed = readArgs(argv, {
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'max-episodes': { type: 'string' },
      'idle-s': { type: 'string' },
      'max-body': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    positionals: true,
  });
  const usage = (problem: string): number => {
    io.stderr.write(`aicc serve: ${problem}; run \`aicc serve --help\`\n`);
    return 2;
  };
  if (typeof parsed === 'string') return usage(parsed);
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage(positionals.length === 0 ? 'name the world to serve' : `one world at a time, got ${positionals.join(' ')}`);
  const numbers: Record<string, number> = {};
  for (const [flag, min, max] of [
    ['port', 0, 65_535],
    ['max-episodes', 1, 100_000],
    ['idle-s', 1, 86_400 * 7],
    ['max-body', 1024, 64 * 1024 * 1024],
  ] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = wholeNumber(`--${flag}`, text, min, max);
    if (typeof n === 'string') return usage(n);
    numbers[flag] = n;
  }
  const key = (runtime.env ?? process.env)['AICC_SERVE_KEY'] || undefined;
  let world;
  try {
    world = await loadWorld(positionals[0]!);
  } catch (error) {
    io.stderr.write(`aicc serve: ${userMessage(error)}\n`);
    return 1;
  }
  let server;
  try {
    server = await startServe({
      world,
      ...(values.host !== undefined && { host: values.host }),
      port: numbers['port'] ?? 8000,
      ...(key !== undefined && { key }),
      ...(numbers['max-episodes'] !== undefined && { maxEpisodes: numbers['max-episodes'] }),
      ...(numbers['idle-s'] !== undefined && { idleMs: numbers['idle-s'] * 1000 }),
      ...(numbers['max-body'] !== undefined && { maxBodyBytes: numbers['max-body'] }),
      onError: (error) => void io.stderr.write(`aicc serve: ${userMessage(error)}\n`),
    });
  } catch (error) {
    io.stderr.write(`aicc serve: ${userMessage(error)}\n`);
    return 1;
  }
  io.stdout.write(`aicc serve: listening on ${server.url} (world ${world.name})\n`);
  await untilStopped(runtime.signal);
  await server.close();
  return 0;
}
