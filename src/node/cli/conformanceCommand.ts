// `aicc conformance <ws://… | module>`: runs the aicc/0.1 conformance suite against a bridge and
// prints a table per level; exits 1 when a check fails.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { binaryCodec } from '../../protocol/binaryCodec.js';
import type { WebSocketConstructor } from '../../links/websocket.js';
import { formatConformance, runConformance, webSocketBridge, type BridgeFactory } from '../../conformance/index.js';
import type { Level } from '../../conformance/check.js';
import { readArgs } from './args.js';
import type { CliIo } from './cliIo.js';

const HELP = `aicc conformance — check an aicc/0.1 bridge, level by level

Usage: aicc conformance <ws://HOST:PORT/PATH | MODULE> [options]

Targets:
  ws://… or wss://…   a bridge behind a WebSocket: each connection is a new session. It lends no
                      clock and takes no tools, so the checks that need them report n/a.
  MODULE              a JavaScript module whose default export (or export \`bridge\`) is a function
                      returning a ConformanceBridge, e.g. capsuleBridge(capsule) from
                      aicc-capsule/conformance: every check applies (docs/CONFORMANCE.md).

Options:
  --level 1,2,3       the levels to run (default all): 1 wire and manifest, 2 calls, 3 time and continuity
  --only TEXT         only the checks whose id contains TEXT (e.g. L2.timeout)
  --resume-url URL    ws targets: where the bridge takes resumed sessions (enables L3.resume)
  --binary            ws targets: binary frames (binaryCodec) instead of JSON text
  --wait-ms N         how long an expected answer may take (default 2000)
  --json              print the report as JSON
  -h, --help          this help

Exit codes: 0 no check failed (the last line says whether that is a verdict: "conformant at
L1, L2…", or "no verdict for L2…" when checks could not run against this target), 1 a check failed, 2 bad usage or a target that
cannot be loaded or reached (a ws:// target is connected to once before any check).
`;

export async function conformanceCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = readArgs(argv, {
    options: {
      level: { type: 'string' },
      only: { type: 'string' },
      'resume-url': { type: 'string' },
      binary: { type: 'boolean' },
      'wait-ms': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    positionals: true,
  });
  if (typeof parsed === 'string') {
    io.stderr.write(`aicc conformance: ${parsed}; run \`aicc conformance --help\`\n`);
    return 2;
  }
  const { values } = parsed;
  const { positionals } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write('aicc conformance: name one target, a ws:// URL or a module; run `aicc conformance --help`\n');
    return 2;
  }
  const levels = (values.level ?? '1,2,3').split(',').map(Number);
  if (levels.some((level) => ![1, 2, 3].includes(level))) {
    io.stderr.write(`aicc conformance: --level takes 1, 2 and 3, comma-separated; got ${values.level}\n`);
    return 2;
  }
  const waitMs = values['wait-ms'] === undefined ? 2000 : Number(values['wait-ms']);
  if (!(Number.isFinite(waitMs) && waitMs > 0)) {
    io.stderr.write(`aicc conformance: --wait-ms takes a number of ms above 0; got ${values['wait-ms']}\n`);
    return 2;
  }
  const target = positionals[0]!;
  const remote = /^wss?:\/\//.test(target);
  const wsOnly = (['resume-url', 'binary'] as const).find((name) => values[name] !== undefined);
  if (!remote && wsOnly !== undefined) {
    io.stderr.write(`aicc conformance: --${wsOnly} is for ws:// targets; a module's bridge says these itself\n`);
    return 2;
  }
  if (values['resume-url'] !== undefined && !/^wss?:\/\//.test(values['resume-url'])) {
    io.stderr.write(`aicc conformance: --resume-url takes a ws:// or wss:// URL; got ${JSON.stringify(values['resume-url'])}\n`);
    return 2;
  }
  let factory: BridgeFactory;
  if (remote) {
    const options = {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      ...(values['resume-url'] ? { resumeUrl: values['resume-url'] } : {}),
      ...(values.binary ? { codec: binaryCodec } : {}),
    };
    // Every check opens its own session: against a target nobody answers, each would fail alike.
    // One connection first says so once.
    const unreachable = await reachable(target, Math.max(waitMs, PROBE_MS));
    if (unreachable !== undefined) {
      io.stderr.write(
        `aicc conformance: could not connect to ${target} (${unreachable}); is the bridge running and listening there? Start it, or fix the host, port or path\n`,
      );
      return 2;
    }
    factory = () => webSocketBridge(target, options);
  } else {
    const loaded = await loadModule(target, io);
    if (typeof loaded === 'number') return loaded;
    factory = loaded;
  }
  const report = await runConformance(factory, { levels: levels as Level[], waitMs, ...(values.only ? { only: values.only } : {}) });
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatConformance(report)}\n`);
  return report.passed ? 0 : 1;
}

async function loadModule(path: string, io: CliIo): Promise<BridgeFactory | number> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    io.stderr.write(`aicc conformance: cannot load ${path}: ${(error as Error).message.split('\n', 1)[0]}\n`);
    return 2;
  }
  const factory = module['default'] ?? module['bridge'];
  if (typeof factory !== 'function') {
    io.stderr.write(`aicc conformance: ${path} exports no bridge: export a function returning a ConformanceBridge as default or as \`bridge\`\n`);
    return 2;
  }
  return factory as BridgeFactory;
}

/** How long the first connection to a ws:// target may take at least. */
const PROBE_MS = 5000;

/**
 * Why a WebSocket to `url` does not open (the socket's own words: ECONNREFUSED, a 404, a timeout),
 * or undefined once it opened (then it is closed again at once).
 */
function reachable(url: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, { handshakeTimeout: timeoutMs });
    } catch (error) {
      resolve((error as Error).message);
      return;
    }
    socket.once('open', () => {
      socket.close(1000, 'conformance: reachable');
      resolve(undefined);
    });
    // `on`, not `once`: an error after the close must find a listener too (a later one changes nothing).
    socket.on('error', (error: Error) => resolve(error.message || (error as NodeJS.ErrnoException).code || String(error)));
  });
}
