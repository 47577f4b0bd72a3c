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
import type { CliIo } from './main.js';

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

Exit codes: 0 every applicable check passed, 1 a check failed, 2 bad usage or a target that
cannot be loaded.
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
  let factory: BridgeFactory;
  if (/^wss?:\/\//.test(target)) {
    const options = {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      ...(values['resume-url'] ? { resumeUrl: values['resume-url'] } : {}),
      ...(values.binary ? { codec: binaryCodec } : {}),
    };
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
