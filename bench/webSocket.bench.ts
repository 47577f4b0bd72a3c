// One tool call round trip over a real WebSocket on 127.0.0.1: the capsule against a bare echo.
//
// What it measures: an AgentClient (connectWebSocket with `ws`'s WebSocket) awaiting
// `agent.call('move_to', { x, y })` on a capsule in event mode whose game side is
// webSocketLink(socket) on a `ws` WebSocketServer — the whole call of bench/toolCall.bench.ts
// (JSON frames, bounds, message and input/output schema checks, handler) plus the socket — one
// call in flight, timed by tinybench after a warm-up.
//
// Why the baseline is fair: it is the floor no protocol over this transport can beat. A bare `ws`
// client sends a JSON text frame the size of the capsule's own tool_call frame (its text, taken
// from a real call) to a bare `ws` server that sends it straight back, and awaits the echo: the
// same library, the same loopback, the same two event-loop turns, the same warm-up and number of
// round trips, with none of the work. The capsule's ratio to it is what the protocol costs on the
// wire. Both run in this one process, as the capsule and agent do. A second echo also parses and
// stringifies JSON on both ends — the floor of any JSON protocol — to show how much of the gap is
// the encoding every JSON peer pays and how much is the capsule's own.

import { statsOf, timeCalls, us, type CallStats } from './callTiming.js';
import { capsuleOverWebSocket } from './capsulePeer.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';
import { echoOverWebSocket } from './webSocketEcho.js';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const plan = options.quick ? { warmupCalls: 20, calls: 100, rounds: 2 } : { warmupCalls: 3_000, calls: 40_000, rounds: 10 };
  const capsule = await capsuleOverWebSocket();
  let stats: Map<string, CallStats>;
  let frames: { call: string; result: string };
  try {
    frames = await capsule.sampleFrames(0);
    const echo = await echoOverWebSocket(frames.call);
    const jsonEcho = await echoOverWebSocket(frames.call, { json: true });
    try {
      stats = await timeCalls(
        [
          { name: 'echo', call: (n) => echo.call(n) },
          { name: 'json echo', call: (n) => jsonEcho.call(n) },
          { name: 'capsule', call: (n) => capsule.call(n + 1) },
        ],
        plan,
        'webSocket',
      );
    } finally {
      await echo.close();
      await jsonEcho.close();
    }
  } finally {
    await capsule.close();
  }
  const cap = statsOf(stats, 'capsule');
  const echo = statsOf(stats, 'echo');
  const setting = `${plan.calls} round trips each, one in flight, in ${plan.rounds} interleaved rounds after ${plan.warmupCalls}; echo frame ${bytes(frames.call)} B (the capsule's tool_call; its tool_result is ${bytes(frames.result)} B)`;
  // The row contract wants figures where higher is faster (ratio = baseline ÷ capsule), so latencies go in as rates: 1 ÷ latency.
  const latencyRow = (which: 'p50' | 'p99', target: string): BenchRow => {
    const capsuleRate = 1e6 / cap[`${which}Us`];
    const echoRate = 1e6 / echo[`${which}Us`];
    return {
      name: `webSocket ${which} round trip vs echo`,
      capsule: capsuleRate,
      baseline: echoRate,
      unit: `per s (1/${which})`,
      ratio: timeRatio(capsuleRate, echoRate),
      note: `${which} ${us(cap[`${which}Us`])} vs ${us(echo[`${which}Us`])}; ratio = capsule ${which} ÷ echo ${which} (lower is better)${target}; ${setting}`,
    };
  };
  // The same p50 against the JSON floor: an echo that also parses and stringifies a frame on each
  // side, as any JSON protocol must. What is left between it and the capsule is the protocol's own
  // work (checks, ids, dispatch, the tool), not the encoding.
  const jsonEcho = statsOf(stats, 'json echo');
  const jsonFloorRow: BenchRow = {
    name: 'webSocket p50 round trip vs JSON echo',
    capsule: 1e6 / cap.p50Us,
    baseline: 1e6 / jsonEcho.p50Us,
    unit: 'per s (1/p50)',
    ratio: timeRatio(1e6 / cap.p50Us, 1e6 / jsonEcho.p50Us),
    note: `p50 ${us(cap.p50Us)} vs ${us(jsonEcho.p50Us)}; the echo also JSON.parses and JSON.stringifies on both ends: the floor of any JSON protocol; target ≤ 1.15× (issue #14); ${setting}`,
  };
  return [
    latencyRow('p50', ''),
    jsonFloorRow,
    latencyRow('p99', ''),
    {
      name: 'webSocket calls vs echo',
      capsule: cap.callsPerSecond,
      baseline: echo.callsPerSecond,
      unit: 'calls/s',
      ratio: timeRatio(cap.callsPerSecond, echo.callsPerSecond),
      note: `one in flight (1 ÷ mean round trip); ratio = capsule time ÷ echo time (lower is better); ${setting}`,
    },
  ];
}

function bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
