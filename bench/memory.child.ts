// The measuring process of bench/memory.bench.ts, which bundles it with esbuild and starts it with
// `--expose-gc` (`node --expose-gc --import tsx bench/memory.child.ts …` works too, but tsx's
// keepNames adds a property dictionary to every closure):
//
//   node --expose-gc <bundle> <capsule|baseline> <count>
//   node --expose-gc <bundle> active <count> <events>
//
// Builds `count` idle sessions (capsule) or bare memory link pairs with a mitt listener each
// (baseline), and prints one JSON line: the heap used after a forced GC before and after, and the
// difference per session. Everything either side needs once (modules, the capsule, the JIT's code)
// exists before the first reading: a few warm-up sessions are built and kept first.

import mitt, { type Emitter } from 'mitt';
import type { Frame } from '../src/protocol/codec.js';
import type { Link } from '../src/links/link.js';
import { createMemoryLinkPair } from '../src/links/memory.js';
import { createCapsule } from '../src/runtime/capsule.js';
import { ManualClock } from '../src/base/clock.js';
import { precompiledValidators } from '../src/validators/precompiled.js';

export type MemoryKind = 'capsule' | 'baseline' | 'active';

export interface MemoryReading {
  kind: MemoryKind;
  count: number;
  beforeBytes: number;
  afterBytes: number;
  bytesPerSession: number;
}

const WARM_UP = 50;

declare const gc: (() => void) | undefined;

function heapUsed(): number {
  if (typeof gc !== 'function') throw new Error('bench/memory.child: run with node --expose-gc');
  // Several passes: finalizers and weak references can free more on a second one.
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A peer that listens and never sends: what a session's far end is at minimum. */
function quietPeer(link: Link): void {
  link.listen({ message: () => {}, close: () => {} });
}

/** Returns a function that builds one more idle session and keeps it reachable. */
function capsuleBuilder(kept: unknown[]): () => void {
  const capsule = createCapsule({
    world: { name: 'Memory bench', kind: '2d' },
    validators: precompiledValidators({ validators: {} }),
    tickMode: 'fixed',
    clock: new ManualClock(),
  });
  kept.push(capsule);
  let n = 0;
  return () => {
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    quietPeer(agentEnd);
    capsule.connect(bridgeEnd, { character: `npc${n++}` });
    kept.push(agentEnd);
  };
}

/** The baseline: a memory link pair whose one end feeds a mitt emitter with one listener. */
function baselineBuilder(kept: unknown[]): () => void {
  return () => {
    const [near, far] = createMemoryLinkPair();
    const bus: Emitter<{ message: Frame }> = mitt();
    bus.on('message', () => {});
    near.listen({ message: (frame) => bus.emit('message', frame), close: () => {} });
    quietPeer(far);
    kept.push({ near, far, bus });
  };
}

/**
 * `count` sessions that each hear `events` state_changes, one delivery a tick: what a session
 * keeps to replay on a resume grows, and the reading is that growth per session (the events
 * themselves, kept once for every session they reached, counted in).
 */
async function active(count: number, events: number): Promise<MemoryReading> {
  const clock = new ManualClock();
  // Heartbeats and the dead-peer drop kept out of the way: the peers only listen.
  const capsule = createCapsule({
    world: { name: 'Memory bench', kind: '2d' },
    validators: precompiledValidators({ validators: {} }),
    tickMode: 'fixed',
    clock,
    heartbeatIntervalMs: 1e9,
    deadPeerTimeoutMs: 1e9,
  });
  const kept: unknown[] = [capsule];
  for (let n = 0; n < count; n++) {
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    quietPeer(agentEnd);
    capsule.connect(bridgeEnd, { character: `npc${n}`, agentModel: { class: 'edge_small' }, subscriptions: ['state_change'] });
    kept.push(agentEnd);
  }
  await turn();
  const beforeBytes = heapUsed();
  for (let i = 0; i < events; i++) {
    capsule.emit('state_change', { entity: `e${i % 100}`, field: 'x', value: i });
    capsule.step(100);
    await turn();
  }
  const afterBytes = heapUsed();
  const delivered = capsule.sessions()[0]!.stats.sent;
  if (delivered < events) throw new Error(`bench/memory.child: a session was sent ${delivered} messages, fewer than ${events}`);
  if (kept.length === 0) process.stdout.write('\n');
  return { kind: 'active', count, beforeBytes, afterBytes, bytesPerSession: (afterBytes - beforeBytes) / count };
}

async function main(argv: string[]): Promise<void> {
  const kind = argv[0];
  const count = Number(argv[1]);
  if ((kind !== 'capsule' && kind !== 'baseline' && kind !== 'active') || !Number.isInteger(count) || count < 1) {
    throw new Error('usage: node --expose-gc memory.child.mjs <capsule|baseline|active> <count>');
  }
  if (kind === 'active') {
    process.stdout.write(`${JSON.stringify(await active(count, Number(argv[2])))}\n`);
    return;
  }
  const warm: unknown[] = [];
  const warmBuild = kind === 'capsule' ? capsuleBuilder(warm) : baselineBuilder(warm);
  for (let i = 0; i < WARM_UP; i++) warmBuild();
  await turn();
  const kept: unknown[] = [];
  // The capsule itself is built before the first reading: only sessions are counted.
  const build = kind === 'capsule' ? capsuleBuilder(kept) : baselineBuilder(kept);
  const beforeBytes = heapUsed();
  for (let i = 0; i < count; i++) build();
  // Let the links deliver what they hold (the session_init frames), as an idle session would have.
  await turn();
  const afterBytes = heapUsed();
  const reading: MemoryReading = { kind, count, beforeBytes, afterBytes, bytesPerSession: (afterBytes - beforeBytes) / count };
  process.stdout.write(`${JSON.stringify(reading)}\n`);
  // Keep everything reachable until the reading is taken.
  if (kept.length + warm.length === 0) process.stdout.write('\n');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
