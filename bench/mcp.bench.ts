// An MCP tools/call through the capsule's bridge (serveMcp) against the MCP SDK's own McpServer —
// the cost of serving a game character as MCP tools, over a server that just runs a function.
//
// What it measures: the MCP SDK's Client awaiting `client.callTool({ name: 'move_to', arguments })`
// over the SDK's InMemoryTransport pair, one call in flight, timed by tinybench after a warm-up in
// interleaved rounds (bench/callTiming.ts). The capsule side is the Client → serveMcp → the
// character's aicc session → the capsule in event mode and back (bench/mcpBridgePeer.ts); the
// baseline is the same Client → McpServer with the same tool, zod input and output schemas of the
// same shape and the same handler work (bench/mcpPeer.ts, also the baseline of toolCall.bench.ts).
//
// Why it is fair: same client, same transport, same inputs, same number of calls; each side checks
// the input before the handler and the output after it, and neither client checks outputs. What
// the bridge does beyond the SDK's server is what it is for: the aicc session's checks (capability,
// limits, message), the hop through the session's memory link, and a short text copy of the output
// beside structuredContent (the SDK peer returns `content: []`). Target (issue 18): ≤ 1.2× the
// SDK server's time per call.

import { statsOf, timeCalls, us, type CallStats, type TimingPlan } from './callTiming.js';
import type { CallPeer } from './capsulePeer.js';
import { bridgeOverMemory } from './mcpBridgePeer.js';
import { mcpOverMemory } from './mcpPeer.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const plan: TimingPlan = options.quick ? { warmupCalls: 20, calls: 100, rounds: 2 } : { warmupCalls: 5_000, calls: 40_000, rounds: 10 };
  const peers: Record<string, CallPeer> = { sdk: await mcpOverMemory(), bridge: await bridgeOverMemory() };
  let stats: Map<string, CallStats>;
  try {
    stats = await timeCalls(
      Object.entries(peers).map(([name, peer]) => ({ name, call: (n: number) => peer.call(n) })),
      plan,
      'mcp',
    );
  } finally {
    for (const peer of Object.values(peers)) await peer.close();
  }
  const bridge = statsOf(stats, 'bridge');
  const sdk = statsOf(stats, 'sdk');
  return [
    {
      name: 'mcp tools/call: serveMcp vs SDK McpServer',
      capsule: bridge.callsPerSecond,
      baseline: sdk.callsPerSecond,
      unit: 'calls/s',
      ratio: timeRatio(bridge.callsPerSecond, sdk.callsPerSecond),
      note:
        `p50 ${us(bridge.p50Us)} vs ${us(sdk.p50Us)}, p99 ${us(bridge.p99Us)} vs ${us(sdk.p99Us)}; ` +
        `SDK Client over InMemoryTransport, ${plan.calls} calls each, one in flight, in ${plan.rounds} interleaved rounds after ${plan.warmupCalls}; ` +
        `ratio = bridge time ÷ SDK server time (lower is better); target ≤ 1.2× (issue 18)`,
    },
  ];
}
