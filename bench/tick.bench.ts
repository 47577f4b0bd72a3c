// Tick cost: the wall time of one tick of a capsule fanning world events out to its agents, against a
// hand-written mitt loop doing the same fan-out.
//
// What it measures: a capsule (ManualClock, fixed mode, 10 Hz) with 50 sessions, each an
// AgentClient on a memory link declared edge_small (so every tick's events are delivered that tick)
// and subscribed to tick and state_change; a world of 1,000 entities of which 100 distinct ones,
// drawn from a seeded stream, move each tick, each emitted as a state_change. One tick is
// `capsule.step(100)`, the 100 emits, then one setImmediate turn, after which every agent's handlers
// hold the tick's 100 state_changes and its tick (checked each tick). Run with objectCodec on both
// ends (messages passed as they are) and with the default jsonCodec (text frames, as over a socket).
// Time is per tick, the mean over a time budget after a warm-in that fills every session's replay
// buffer (steady state; set-up is outside the timing). Rows give it as ticks/s, and µs/tick in the note.
//
// Why the baseline is fair: the mitt loop is what a game would write to hand each of 50 in-process
// agents the same 100 changes and a tick: one emitter, 50 subscribers each pushing into its own
// arrays, the same world and draws, the same tick payload, the same setImmediate wait and the same
// per-tick check. What it leaves out is only what the capsule adds: envelopes and sequenced ids,
// replay buffers, per-session queues and cadence, codecs, inbound bounds and schema checks on the
// agent side, and the AgentClient's dispatch.
//
// A third row times the protocol's floor (envelopeFloorSide): the mitt loop where every event reaches
// every subscriber as its own aicc/0.1 message with a message id — what any bridge speaking aicc/0.1
// must do for this fan-out, and nothing more. Its ratio is the least any such bridge could score.

import { Bench } from 'tinybench';
import { jsonCodec } from '../src/protocol/codec.js';
import { objectCodec } from '../src/protocol/objectCodec.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';
import { capsuleSide, envelopeFloorSide, jsonEnvelopeFloorSide, mittSide, TICK_SETTINGS, type TickSide } from './tick.world.js';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const settings = TICK_SETTINGS;
  // Warm-in: the JIT's, and enough ticks (101 messages each) to fill the 1,024-message replay buffers.
  const warmInTicks = options.quick ? 3 : 40;
  const budget = options.quick ? { time: 0, iterations: 5 } : { time: 6000, iterations: 50 };
  const baselineBudget = options.quick ? budget : { time: 2500, iterations: 200 };

  const mitt = await timeTicks('mitt loop', () => mittSide(settings), warmInTicks, baselineBudget);
  const floor = await timeTicks('aicc/0.1 floor', () => envelopeFloorSide(settings), warmInTicks, baselineBudget);
  const jsonFloor = await timeTicks('aicc/0.1 floor over JSON', () => jsonEnvelopeFloorSide(settings), warmInTicks, budget);
  const object = await timeTicks('capsule, objectCodec', () => capsuleSide(settings, objectCodec), warmInTicks, budget);
  const json = await timeTicks('capsule, jsonCodec', () => capsuleSide(settings, jsonCodec), warmInTicks, budget);

  const setting = `${settings.sessions} agents × (${settings.changesPerTick} state_change + 1 tick) per tick, ${settings.entities} entities`;
  // Figures are rates (ticks/s, higher is faster) as the row contract wants; the time per tick, the
  // figure to read, is in the note, and the ratio is capsule time ÷ mitt-loop time either way.
  const row = (side: Timed, codec: string, target: string): BenchRow => ({
    name: `tick fan-out, ${codec}`,
    capsule: 1e6 / side.meanUs,
    baseline: 1e6 / mitt.meanUs,
    unit: 'ticks/s',
    ratio: timeRatio(1e6 / side.meanUs, 1e6 / mitt.meanUs),
    note: `${us(side.meanUs)}/tick vs ${us(mitt.meanUs)} (mean of ${side.samples} and ${mitt.samples} ticks after ${warmInTicks}; p50 ${us(side.p50Us)} vs ${us(mitt.p50Us)}); ${setting}${target}`,
  });
  const overFloor = (side: Timed): string => `; ${(side.meanUs / floor.meanUs).toFixed(1)}× the aicc/0.1 floor's time`;
  return [
    row(object, 'objectCodec', `${overFloor(object)}; target ≤ 2× the floor's time (issue #14)`),
    row(json, 'jsonCodec', `${overFloor(json)}, ${(json.meanUs / jsonFloor.meanUs).toFixed(1)}× the floor over JSON; target ≤ 5× the floor's time (issue #14)`),
    {
      ...row(floor, 'aicc/0.1 floor', ''),
      note: `${us(floor.meanUs)}/tick vs ${us(mitt.meanUs)}: the mitt loop with every event sent to every subscriber as its own aicc/0.1 message with a message id, and nothing else — the least any aicc/0.1 bridge costs here`,
    },
    {
      ...row(jsonFloor, 'aicc/0.1 floor over JSON', ''),
      note: `${us(jsonFloor.meanUs)}/tick vs ${us(mitt.meanUs)}: the floor with every message as JSON text (each payload stringified once, each subscriber parsing its tick's messages as one array) — the least any aicc/0.1 bridge and agent speaking JSON cost here; ${(jsonFloor.meanUs / floor.meanUs).toFixed(1)}× the floor`,
    },
  ];
}

function us(value: number): string {
  return `${value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toPrecision(3)} µs`;
}

interface Timed {
  meanUs: number;
  p50Us: number;
  samples: number;
}

async function timeTicks(
  name: string,
  make: () => TickSide | Promise<TickSide>,
  warmInTicks: number,
  budget: { time: number; iterations: number },
): Promise<Timed> {
  const side = await make();
  try {
    for (let i = 0; i < warmInTicks; i++) await side.tick();
    const bench = new Bench({ ...budget, warmup: false, throws: true });
    bench.add(name, () => side.tick(), { async: true });
    await bench.run();
    const result = bench.getTask(name)?.result;
    if (result === undefined || result.state !== 'completed') throw new Error(`bench/tick: task "${name}" did not complete (${result?.state ?? 'missing'})`);
    return { meanUs: result.latency.mean * 1000, p50Us: result.latency.p50 * 1000, samples: result.latency.samplesCount };
  } finally {
    side.dispose();
  }
}
