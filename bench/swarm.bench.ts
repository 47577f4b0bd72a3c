// Swarm ticks per second through the capsule, against a bare loop doing the same work without it.
//
// What it measures: 128 foragers on a 64×64 grid, each an in-process AgentClient over a memory
// link, hearing every tick and deciding every 2–4 ticks (sense, then move or eat). Every call is a
// real aicc/0.1 round trip: encoded, bounded, schema-checked, limited, run at the next tick, answered;
// every tick and state_change is an event delivered at the session's cadence.
//
// Why the baseline is fair: BareSwarm (demos/swarm/bare.ts) runs the same SwarmWorld and the same
// ForagerBrains from the same seed with the same timing — a call made on one tick's news runs at
// the next tick — so it senses, moves, eats, regrows and tells neighbours exactly as often as the
// capsule run does (test/demos/swarm.test.ts checks the decisions match forager by forager). What
// it leaves out is only what the capsule adds: protocol, links, codecs, validation, limits, ids,
// events, cadence and replay. Set-up (building the world, connecting agents) is outside the timing
// for both. Both are timed in steady state: one world per side, warmed in for 1,000 ticks (by then
// every session's replay buffer is full, as in any long run; before, the capsule looks faster),
// then timed over consecutive windows of ticks.
//
// A third row times the protocol's floor (bench/swarm.floor.ts): the bare loop plus only what any
// aicc/0.1 bridge must do — a message per call, per result and per event, each with its own id, and
// the input checked against its schema. Its ratio is the least any such bridge could score here; the
// capsule's ratio over it is the price of the capsule's own design.

import { Bench } from 'tinybench';
import { runHeadless } from '../src/adapters/headless/runner.js';
import { BareSwarm } from '../demos/swarm/bare.js';
import { ProtocolFloorSwarm } from './swarm.floor.js';
import { buildSwarm, type Swarm } from '../src/worlds/swarm/swarm.js';
import { jsonCodec } from '../src/protocol/codec.js';
import { objectCodec } from '../src/protocol/objectCodec.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';

const SEED = 'bench';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const foragers = options.quick ? 16 : 128;
  const ticks = options.quick ? 10 : 300;
  // Also the JIT's warm-up, so tinybench's own warm-up (which would run a second world) is off.
  const warmInTicks = options.quick ? 5 : 1000;
  const settings = { seed: SEED, foragers };
  // The bare loop's windows last milliseconds, so it gets more of them to steady its median.
  const capsuleBench = new Bench({ iterations: options.quick ? 2 : 8, time: 0, warmup: false, throws: true });
  const bareBench = new Bench({ iterations: options.quick ? 2 : 60, time: 0, warmup: false, throws: true });

  // The default JSON codec, and objectCodec, which in-process agents may use to skip encoding.
  const codecs = { json: jsonCodec, object: objectCodec } as const;
  for (const [name, codec] of Object.entries(codecs)) {
    let swarm: Swarm | undefined;
    capsuleBench.add(
      name,
      async () => {
        await runHeadless({ capsule: swarm!.capsule, ticks });
      },
      {
        async: true,
        beforeAll: async () => {
          swarm = await buildSwarm({ ...settings, codec });
          await runHeadless({ capsule: swarm.capsule, ticks: warmInTicks });
        },
        afterAll: () => {
          swarm?.capsule.dispose('bench over');
          swarm = undefined;
        },
      },
    );
  }

  let bare: BareSwarm | undefined;
  bareBench.add(
    'bare',
    () => {
      for (let i = 0; i < ticks; i++) bare!.step();
    },
    {
      async: false,
      beforeAll: () => {
        bare = new BareSwarm(settings);
        for (let i = 0; i < warmInTicks; i++) bare.step();
      },
    },
  );

  // The floor, with messages as objects and (json) as JSON text each receiver parses.
  for (const json of [false, true]) {
    let floor: ProtocolFloorSwarm | undefined;
    bareBench.add(
      json ? 'floor json' : 'floor',
      () => {
        for (let i = 0; i < ticks; i++) floor!.step();
      },
      {
        async: false,
        beforeAll: () => {
          floor = new ProtocolFloorSwarm({ ...settings, json });
          for (let i = 0; i < warmInTicks; i++) floor.step();
        },
      },
    );
  }

  await capsuleBench.run();
  await bareBench.run();
  const baseline = ticksPerSecond(bareBench, 'bare', ticks);
  const floorRate = ticksPerSecond(bareBench, 'floor', ticks);
  const jsonFloorRate = ticksPerSecond(bareBench, 'floor json', ticks);
  const rows: BenchRow[] = Object.keys(codecs).map((name) => {
    const capsule = ticksPerSecond(capsuleBench, name, ticks);
    const overJsonFloor = name === 'json' ? `, ${timeRatio(capsule, jsonFloorRate).toFixed(1)}× the floor over JSON` : '';
    return {
      name: `swarm ${foragers} foragers (${name} codec)`,
      capsule,
      baseline,
      unit: 'ticks/s',
      ratio: timeRatio(capsule, baseline),
      note: `median ${ticks}-tick window after ${warmInTicks} ticks; ${timeRatio(capsule, floorRate).toFixed(1)}× the aicc/0.1 floor's time${overJsonFloor}; target ≤ ${name === 'object' ? 3 : 5}× the floor's time (issue #14)`,
    };
  });
  rows.push({
    name: `swarm ${foragers} foragers, aicc/0.1 floor`,
    capsule: floorRate,
    baseline,
    unit: 'ticks/s',
    ratio: timeRatio(floorRate, baseline),
    note: `the bare loop plus only the protocol's own work (a message per call, result and event, with ids; input schema checks): the least any aicc/0.1 bridge costs here (bench/swarm.floor.ts)`,
  });
  rows.push({
    name: `swarm ${foragers} foragers, aicc/0.1 floor over JSON`,
    capsule: jsonFloorRate,
    baseline,
    unit: 'ticks/s',
    ratio: timeRatio(jsonFloorRate, baseline),
    note: `the floor with every message stringified by its sender and parsed by its receiver: the least any aicc/0.1 bridge and agent speaking JSON cost here; ${timeRatio(jsonFloorRate, floorRate).toFixed(1)}× the floor`,
  });
  return rows;
}

function ticksPerSecond(bench: Bench, name: string, ticks: number): number {
  const result = bench.getTask(name)?.result;
  if (result === undefined || result.state !== 'completed') throw new Error(`bench/swarm: task "${name}" did not complete (${result?.state ?? 'missing'})`);
  return ticks / (result.latency.p50 / 1000);
}
