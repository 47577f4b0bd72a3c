// One tool call round trip, in process: the capsule against the MCP TypeScript SDK.
//
// What it measures: an AgentClient awaiting `agent.call('move_to', { x, y })` on a capsule in event
// mode (the call runs the moment it arrives) over a memory link — message built, encoded, bounded,
// schema-checked as a message, session and capability checked, input validated against its JSON
// Schema, handler run, output validated, result sent back, decoded, checked, and matched to its
// pending call — one call in flight, timed by tinybench after a warm-up. Rows: with objectCodec on
// both ends, and with the default jsonCodec.
//
// Why the baseline is fair: the MCP SDK's Client awaits `client.callTool({ name, arguments })` on an
// McpServer over its InMemoryTransport pair, with zod input and output schemas of the same shape
// (both sides refuse undeclared input fields), the same handler work (bench/capsulePeer.ts walkTo),
// the same inputs, the same warm-up and the same number of calls. Each side validates the input and
// the output once, at the server (bench/mcpPeer.ts). MCP's in-memory transport hands objects across
// without serialising them, so the objectCodec row is the like-for-like one; the jsonCodec row adds
// the capsule's JSON encode and parse on both ends and is reported alongside. The capsule session
// subscribes to no events, so its link carries only calls and results, as MCP's does. Each side
// runs as `npm run bench` loads it: MCP as its published JavaScript, the capsule as TypeScript
// compiled by tsx on the fly (whose keepNames wraps each named closure the call path creates in a
// `__name` call, which the published build does not) — if anything, a handicap for the capsule.

import { objectCodec } from '../src/protocol/objectCodec.js';
import { statsOf, timeCalls, us, type CallStats, type TimingPlan } from './callTiming.js';
import { capsuleOverMemory, type CallPeer } from './capsulePeer.js';
import { mcpOverMemory } from './mcpPeer.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const plan = options.quick ? { warmupCalls: 20, calls: 100, rounds: 2 } : { warmupCalls: 5_000, calls: 60_000, rounds: 12 };
  const peers: Record<string, CallPeer> = {
    mcp: await mcpOverMemory(),
    'capsule objectCodec': await capsuleOverMemory(objectCodec),
    'capsule jsonCodec': await capsuleOverMemory(),
  };
  let stats: Map<string, CallStats>;
  try {
    stats = await timeCalls(
      Object.entries(peers).map(([name, peer]) => ({ name, call: (n: number) => peer.call(n) })),
      plan,
      'toolCall',
    );
  } finally {
    for (const peer of Object.values(peers)) await peer.close();
  }
  const mcp = statsOf(stats, 'mcp');
  return (['capsule objectCodec', 'capsule jsonCodec'] as const).map((name) => row(name, statsOf(stats, name), mcp, plan));
}

function row(name: string, capsule: CallStats, mcp: CallStats, plan: TimingPlan): BenchRow {
  return {
    name: `toolCall ${name.replace('capsule ', '')} vs MCP`,
    capsule: capsule.callsPerSecond,
    baseline: mcp.callsPerSecond,
    unit: 'calls/s',
    ratio: timeRatio(capsule.callsPerSecond, mcp.callsPerSecond),
    note:
      `p50 ${us(capsule.p50Us)} vs ${us(mcp.p50Us)}, p99 ${us(capsule.p99Us)} vs ${us(mcp.p99Us)}; ` +
      `${plan.calls} calls each, one in flight, in ${plan.rounds} interleaved rounds after ${plan.warmupCalls}; ` +
      `ratio = capsule time ÷ MCP time (lower is better); ${(mcp.callsPerSecond > 0 ? capsule.callsPerSecond / mcp.callsPerSecond : 0).toFixed(1)}× MCP's calls/s; target ≥ ${name.includes('object') ? 8 : 4}× (issue #14)`,
  };
}
