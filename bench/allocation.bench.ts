// Bytes allocated, where the object rows spend a good part of their time (garbage collection was a
// sixth of a swarm tick's profile, and one sweep worker kept 1.2 cores busy partly in V8's GC threads).
//
// Rows and baselines:
// - "bytes allocated per swarm tick": 128 foragers over connectInProcess (objectCodec), against the
//   swarm's aicc/0.1 floor (bench/swarm.floor.ts: a message per call, result and event, with ids,
//   as objects) on the same ticks.
// - "bytes allocated per village episode": a whole runEpisode of the village (the sweep's unit of
//   work), reported beside the sweep's CPU row (research.bench.ts); its baseline is its own
//   decisions: the bytes per agent decision are in the note.
//
// Allocation is counted on this thread with V8's GCProfiler: the heap used before each collection
// less what the one before left, plus the growth since the last; nothing is sampled.

import { GCProfiler, getHeapStatistics } from 'node:v8';
import { runHeadless } from '../src/adapters/headless/runner.js';
import { objectCodec } from '../src/protocol/objectCodec.js';
import { runEpisode } from '../src/research/episode.js';
import { villageWorld } from '../src/worlds/index.js';
import { buildSwarm } from '../src/worlds/swarm/swarm.js';
import type { BenchOptions, BenchRow } from './row.js';
import { ProtocolFloorSwarm } from './swarm.floor.js';

/** Bytes `work` allocates on this thread. */
async function allocated(work: () => unknown): Promise<number> {
  const profiler = new GCProfiler();
  const before = getHeapStatistics().used_heap_size;
  profiler.start();
  await work();
  const after = getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let total = 0;
  let last = before;
  for (const gc of statistics) {
    total += gc.beforeGC.heapStatistics.usedHeapSize - last;
    last = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return total + (after - last);
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const ticks = options.quick ? 50 : 2_000;
  const warmIn = options.quick ? 20 : 500;
  const settings = { foragers: 128, seed: 7 };

  const swarm = await buildSwarm({ ...settings, codec: objectCodec });
  await runHeadless({ capsule: swarm.capsule, ticks: warmIn });
  const swarmBytes = (await allocated(() => runHeadless({ capsule: swarm.capsule, ticks }))) / ticks;
  swarm.capsule.dispose('bench over');
  const floor = new ProtocolFloorSwarm({ ...settings, json: false });
  for (let i = 0; i < warmIn; i++) floor.step();
  const floorBytes =
    (await allocated(() => {
      for (let i = 0; i < ticks; i++) floor.step();
    })) / ticks;

  const episodes = options.quick ? 2 : 40;
  await runEpisode(villageWorld, { seed: 0 }); // JIT warm-up
  let decisions = 0;
  const villageBytes =
    (await allocated(async () => {
      for (let seed = 1; seed <= episodes; seed++) {
        const summary = await runEpisode(villageWorld, { seed });
        decisions += summary.calls.total;
      }
    })) / episodes;
  const perDecision = villageBytes / Math.max(1, decisions / episodes);

  return [
    {
      name: 'bytes allocated per swarm tick, 128 foragers, objectCodec',
      capsule: swarmBytes,
      baseline: floorBytes,
      unit: 'B/tick',
      ratio: swarmBytes / floorBytes,
      note: `${ticks} ticks after ${warmIn}, V8's GCProfiler on this thread; baseline = the swarm's aicc/0.1 floor (objects) on the same ticks`,
    },
    {
      name: 'bytes allocated per village episode',
      capsule: villageBytes,
      baseline: villageBytes,
      unit: 'B/episode',
      ratio: 1,
      note: `runEpisode of the village, ${episodes} seeds; ${Math.round(perDecision).toLocaleString('en-US')} B per agent call (${(decisions / episodes).toFixed(0)} calls an episode); reported, no baseline`,
    },
  ];
}
