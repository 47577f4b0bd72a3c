// Min+gzip size of what a browser game ships for each entry of this package, against the MCP SDK's
// client bundled the same way.
//
// What it measures: each bundle is built from source by esbuild (bundle, minify, ESM, platform
// browser, every dependency bundled in, nothing external) into a temp directory under os.tmpdir(),
// then gzipped at level 9 with node:zlib. "core runtime, precompiled" is what a game without the ajv
// compiler ships: createCapsule from src/core.ts, precompiledValidators, and its links (memory pair,
// WebSocket) — the bridge and the protocol validators of what agents send. "+ in-page agent" adds
// AgentClient (and the validators of what the bridge sends), for a game whose agents run in the page
// too. "index, ajv" is src/index.ts
// whole, with the run-time schema compiler. src/core.ts and the other browser entries (text,
// headless, recording, pi, pilot, inspector, phaser, three) are bundled whole, as a game importing
// everything from them would — the engine a game brings itself (phaser, three) left out.
//
// "Vite game" rows: what a real app ships. A minimal Phaser game built for production by Vite
// (bench/phaserGame.build.ts), with docs/PHASER.md's example and without it, in a consumer project
// that installed the packed package (test/consumer/packed.ts; dist/ must be built); the baseline is
// the game without the plugin. Phaser is in both builds, so the difference is what the plugin adds.
//
// Why the baseline is fair: the MCP client is the closest peer — a protocol client an app embeds to
// give a model tools — and it is built by the same function with the same settings: `Client` from
// @modelcontextprotocol/sdk/client/index.js plus its `InMemoryTransport` (@modelcontextprotocol/sdk/
// inMemory.js), the in-page transport that matches createMemoryLinkPair. It is only the client side,
// while "core, precompiled" also holds the bridge (server) side, so the comparison favours MCP.
// Sizes do not depend on load, so quick mode measures the same thing (it skips nothing).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildBundle, repoRoot, type BundleSize } from './bundleSize.build.js';
import { BARE_GAME, buildGame, docGame, type GameBuild } from './phaserGame.build.js';
import type { BenchOptions, BenchRow } from './row.js';

const KIB = 1024;
const CORE_TARGET_BYTES = 15 * KIB;
const PHASER_ENTRY_TARGET_BYTES = 25 * KIB;
const PHASER_GAME_TARGET_BYTES = 30 * KIB;

/** The two Vite builds of the Phaser game, in a consumer project of the packed package. */
async function phaserGames(): Promise<{ bare: GameBuild; game: GameBuild }> {
  // Loaded from its file at run time (npm run bench bundles this module elsewhere): it finds the
  // repository from its own place.
  const packed = (await import(pathToFileURL(join(repoRoot, 'test', 'consumer', 'packed.ts')).href)) as typeof import('../test/consumer/packed.js');
  if (packed.packedSkip !== undefined) throw new Error(`bench bundleSize: ${packed.packedSkip}`);
  const project = packed.consumerProject({ name: 'bench-vite-phaser', link: ['vite', 'phaser'] });
  return { bare: buildGame(project, 'bare', BARE_GAME), game: buildGame(project, 'doc', docGame(repoRoot)) };
}

export async function run(_options: BenchOptions): Promise<BenchRow[]> {
  const mcp = await buildBundle('mcp client', {
    contents: [
      "export { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      "export { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';",
    ].join('\n'),
  });
  const core = await buildBundle('core runtime, precompiled', {
    contents: [
      "export { createCapsule, createMemoryLinkPair, connectWebSocket, webSocketLink } from './src/core.ts';",
      "export { precompiledValidators } from './src/validators/precompiled.ts';",
    ].join('\n'),
  });
  const withAgent = await buildBundle('core runtime + in-page agent', {
    contents: [
      "export { createCapsule, createMemoryLinkPair, connectWebSocket, webSocketLink, AgentClient } from './src/core.ts';",
      "export { precompiledValidators } from './src/validators/precompiled.ts';",
    ].join('\n'),
  });
  const withAjv = await buildBundle('index, ajv', { entry: 'src/index.ts' });
  const phaserEntry = await buildBundle('phaser adapter', { entry: 'src/adapters/phaser/index.ts' }, ['phaser']);
  const { bare, game } = await phaserGames();
  const others = [
    await buildBundle('core whole', { entry: 'src/core.ts' }),
    await buildBundle('text adapter', { entry: 'src/adapters/text/index.ts' }),
    await buildBundle('headless', { entry: 'src/adapters/headless/index.ts' }),
    await buildBundle('recording', { entry: 'src/recording/index.ts' }),
    await buildBundle('pi (PeersClient, DaemonClient)', { entry: 'src/pi/index.ts' }),
    await buildBundle('pilot', { entry: 'src/agent/pilot/index.ts' }),
    await buildBundle('inspector', { entry: 'src/inspector/index.ts' }),
    await buildBundle('three adapter, three itself left out', { entry: 'src/adapters/three/index.ts' }, ['three']),
  ];

  // A size, not a rate: ratio = capsule ÷ baseline (smaller is better), as BenchRow.ratio means it.
  const row = (bundle: BundleSize, note: string): BenchRow => ({
    name: `bundle ${bundle.name}`,
    capsule: bundle.gzipBytes,
    baseline: mcp.gzipBytes,
    unit: 'B min+gz',
    ratio: bundle.gzipBytes / mcp.gzipBytes,
    note,
  });
  const kib = (bytes: number): string => `${(bytes / KIB).toFixed(1)} KiB`;
  const size = (bundle: BundleSize): string => `${kib(bundle.gzipBytes)} gz (${kib(bundle.minBytes)} min)`;
  const top = (bundle: BundleSize): string =>
    bundle.inputs
      .slice(0, 3)
      .map((input) => `${input.path} ${kib(input.bytes)}`)
      .join(', ');

  return [
    row(
      core,
      `${size(core)} vs MCP Client+InMemoryTransport ${size(mcp)}; target ≤ ${kib(CORE_TARGET_BYTES)} and ≤ 0.20× MCP; largest min inputs: ${top(core)}`,
    ),
    row(withAgent, `${size(withAgent)}: the core runtime and AgentClient; largest min inputs: ${top(withAgent)}`),
    row(withAjv, `${size(withAjv)}: src/index.ts whole, with the ajv compiler; largest min inputs: ${top(withAjv)}`),
    ...others.map((bundle) => row(bundle, `${size(bundle)}: the entry whole, with all it imports; largest min inputs: ${top(bundle)}`)),
    row(
      phaserEntry,
      `${size(phaserEntry)}: the entry whole (Phaser left out), the Phaser tools' validators precompiled; target ≤ ${kib(PHASER_ENTRY_TARGET_BYTES)}; largest min inputs: ${top(phaserEntry)}`,
    ),
    {
      name: 'bundle Vite game: Phaser + aicc-capsule/phaser (docs/PHASER.md example), vs the same game without it',
      capsule: game.gzipBytes,
      baseline: bare.gzipBytes,
      unit: 'B min+gz',
      ratio: game.gzipBytes / bare.gzipBytes,
      note: `adds ${kib(game.gzipBytes - bare.gzipBytes)} gz (${kib(game.minBytes - bare.minBytes)} min) to ${kib(bare.gzipBytes)} gz; target ≤ ${kib(PHASER_GAME_TARGET_BYTES)} added`,
    },
  ];
}
