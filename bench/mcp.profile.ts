// Profiles the MCP tools/call of bench/mcp.bench.ts: bundles a run of one peer with esbuild — the
// capsule's bridge (serveMcp) unless told, or the SDK's own McpServer — runs it under
// `node --cpu-prof`, and prints where the time went, so the two can be read side by side.
//
//   npx tsx bench/mcp.profile.ts [--peer bridge|sdk] [--calls 200000] [--top 30]

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, profileScript } from './profileRun.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(argv: string[]): Promise<void> {
  const calls = Number(option(argv, '--calls', '200000'));
  const top = Number(option(argv, '--top', '30'));
  const peer = option(argv, '--peer', 'bridge');
  if (peer !== 'bridge' && peer !== 'sdk') throw new Error('bench/mcp.profile: --peer must be bridge (serveMcp) or sdk (McpServer)');
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(top) || top < 1)
    throw new Error('bench/mcp.profile: --calls and --top must be whole numbers >= 1');
  const [file, make] = peer === 'bridge' ? ['bench/mcpBridgePeer.ts', 'bridgeOverMemory'] : ['bench/mcpPeer.ts', 'mcpOverMemory'];
  const run = await profileScript(
    `import { ${make} as make } from ${JSON.stringify(join(root, file))};
const peer = await make();
for (let n = 0; n < ${calls}; n++) await peer.call(n);
console.log('calls', ${calls});
await peer.close();`,
    { top, root, place: 'bench/mcp.profile' },
  );
  console.log(run.report.join('\n'));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
