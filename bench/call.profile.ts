// Profiles the in-memory tool call of bench/toolCall.bench.ts (objectCodec unless told): bundles a
// run of it with esbuild, runs that under `node --cpu-prof`, and prints where the time went.
//
//   npx tsx bench/call.profile.ts [--calls 300000] [--codec object|json] [--over memory|websocket] [--top 30]

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, profileScript } from './profileRun.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(argv: string[]): Promise<void> {
  const calls = Number(option(argv, '--calls', '300000'));
  const top = Number(option(argv, '--top', '30'));
  const codec = option(argv, '--codec', 'object');
  const over = option(argv, '--over', 'memory');
  if (over !== 'memory' && over !== 'websocket') throw new Error('bench/call.profile: --over must be memory or websocket (JSON text frames on 127.0.0.1)');
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(top) || top < 1)
    throw new Error('bench/call.profile: --calls and --top must be whole numbers >= 1');
  if (codec !== 'object' && codec !== 'json') throw new Error('bench/call.profile: --codec must be object or json');
  const run = await profileScript(
    `import { capsuleOverMemory, capsuleOverWebSocket } from ${JSON.stringify(join(root, 'bench/capsulePeer.ts'))};
import { ${codec}Codec as codec } from ${JSON.stringify(join(root, codec === 'object' ? 'src/protocol/objectCodec.ts' : 'src/protocol/codec.ts'))};
const peer = ${over === 'websocket' ? 'await capsuleOverWebSocket()' : 'await capsuleOverMemory(codec)'};
for (let n = 0; n < ${calls}; n++) await peer.call(n);
console.log('calls', ${calls});
await peer.close();`,
    { top, root, place: 'bench/call.profile' },
  );
  console.log(run.report.join('\n'));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
