// The pilot (src/agent/pilot) driving a village character through the REAL pi (0.73; 1.x too when
// installed) behind the gateway, against a local stub model (bench/pilot.world.ts). Two questions:
// how much time the path model reply → pi → gateway → PeersClient → pilot → capsule adds to a
// decision, and how many prompt tokens the pilot's briefing and digests cost against the raw AICC
// JSON of the same news.

import { encode } from 'gpt-tokenizer';
import { performance } from 'node:perf_hooks';
import { usable } from '../src/agent/pilot/catalog.js';
import type { BenchOptions, BenchRow } from './row.js';
import { pi1, runPilotedVillage, type PilotRun } from './pilot.world.js';
import { echoOverWebSocket } from './webSocketEcho.js';

const TARGET_P50_MS = 2;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  // As shipped, the pilot's PeersClient asks the gateway to hold each get_state until pi's run has
  // settled and to send the reply along (the gateway's reply-wait extension), so the pilot hears of a
  // reply as soon as pi settles it. The polling run shows what a plain pi-peers agent (no extension)
  // costs at the pilot's default 20 ms poll. The held run also gives the token figures.
  const village = await runPilotedVillage(options.quick ? 3 : 30);
  const polled = await runPilotedVillage(options.quick ? 2 : 5, { plain: true });
  const newer = pi1();
  const onPi1 = newer === undefined ? undefined : await runPilotedVillage(options.quick ? 3 : 30, { pi: newer });
  const floor = await wsEchoMs(options.quick ? 50 : 500);
  const rows: BenchRow[] = [];

  // 1a. From the stub model's last byte to the capsule's 'call' event for the call that reply asked
  // for (model time excluded): pi, gateway, WebSocket, PeersClient, pilot and capsule. It includes
  // pi's own work after the reply (SSE parsing, its events, settling the run) — the same for any
  // client of pi — and the capsule running the call (ticked at once on arrival, so no tick wait).
  // Baseline: the 2 ms target itself, so the ratio reads "times the target".
  rows.push(overheadRow('pilot decision overhead p50 (held get_state)', village, "real pi 0.73, loopback; reply end → capsule 'call'; baseline = 2 ms target"));
  const ours = village.decisions.map((d) => d.executed - d.piSettled);
  const toCapsule = village.decisions.map((d) => d.arrived - d.piSettled);
  const gatewayHop = village.decisions.map((d) => d.replied - d.piSettled);
  const pilotPart = village.decisions.map((d) => d.arrived - d.replied);
  const capsulePart = village.decisions.map((d) => d.executed - d.arrived);

  // 1b. The part this project owns: from the gateway seeing pi's run settle to the capsule's 'call'
  // event (the gateway reads the reply from pi and answers the held get_state over the WebSocket →
  // pilot parse → memory link → capsule). Baseline: the floor of one WebSocket round trip, a bare
  // `ws` echo on loopback, in the same run.
  const oursP50 = quantile(ours, 0.5);
  const floorP50 = quantile(floor, 0.5);
  rows.push({
    name: 'pilot decision: gateway + pilot part p50',
    capsule: oursP50,
    baseline: floorP50,
    unit: 'ms',
    ratio: oursP50 / floorP50,
    note: `pi settled → capsule 'call'; baseline = bare ws echo round trip p50 (p99 ${fmt(quantile(floor, 0.99))} ms); p99 ${fmt(quantile(ours, 0.99))} ms; until the tool_call reaches the capsule p50 ${fmt(quantile(toCapsule, 0.5))} ms; in parts, p50: gateway answers + WebSocket hop ${fmt(quantile(gatewayHop, 0.5))} ms, PeersClient + pilot + AgentClient ${fmt(quantile(pilotPart, 0.5))} ms, capsule runs the call ${fmt(quantile(capsulePart, 0.5))} ms`,
  });

  // 1c. The same decision against an agent without the extension: PeersBackend polls get_state
  // every 20 ms (its default), so the reply waits ~10 ms on average for the next poll.
  rows.push(
    overheadRow(
      'pilot decision overhead p50, plain pi-peers (20 ms poll)',
      polled,
      'as 1a, but the agent ignores the reply-wait extension, so the pilot polls',
    ),
  );

  // 1d. As 1a, with pi 1.x (on Node 22) in place of pi 0.73: pi's own part differs, ours should not.
  if (onPi1 !== undefined) rows.push(overheadRow('pilot decision overhead p50, pi 1.x', onPi1, 'real pi 1.x on Node 22, as 1a'));

  // 2a. The briefing against the raw AICC catalog JSON of the same tools (the usable ones, as the
  // manifest gives them). The briefing also carries the character, the quotas and the reply format,
  // which the bare catalog does not: that is in the capsule's figure, to its cost.
  const { manifest, sent, news } = village;
  const briefingTokens = tokens(sent[0] ?? '');
  const catalogTokens = tokens(JSON.stringify(manifest.tools.filter((tool) => usable(tool, manifest.capabilities))));
  rows.push({
    name: 'pilot briefing tokens',
    capsule: briefingTokens,
    baseline: catalogTokens,
    unit: 'tokens',
    ratio: briefingTokens / catalogTokens,
    note: 'gpt-tokenizer; baseline = raw JSON of the usable tool descriptors from the manifest; the briefing adds character, quotas and reply format',
  });

  // 2b. Each digest against the raw JSON of the AICC event and tool_result messages the agent got
  // while it was gathered: what a bridge passing the protocol through would send the model. The
  // village subscribes to ticks (ten a simulated second, here ten times real time), which dwarf the
  // rest; 2c leaves tick events out of the baseline, the stricter comparison. Messages arriving after
  // the last digest went out are left out of both.
  let digestTokens = 0;
  let rawTokens = 0;
  let rawNoTicks = 0;
  const digests = sent.length - 1;
  for (let k = 1; k < sent.length; k++) {
    digestTokens += tokens(sent[k]!);
    const covered = news.filter((item) => item.sentBefore === k).map((item) => item.message);
    rawTokens += tokens(covered.map((message) => JSON.stringify(message)).join('\n'));
    rawNoTicks += tokens(
      covered
        .filter((message) => message['topic'] !== 'tick')
        .map((message) => JSON.stringify(message))
        .join('\n'),
    );
  }
  const perDigest = digestTokens / Math.max(1, digests);
  const rawPerDigest = rawTokens / Math.max(1, digests);
  const rawNoTicksPerDigest = rawNoTicks / Math.max(1, digests);
  rows.push({
    name: 'pilot digest tokens per decision',
    capsule: perDigest,
    baseline: rawPerDigest,
    unit: 'tokens',
    ratio: perDigest / rawPerDigest,
    note: `${digests} digests; baseline = raw JSON of the event + tool_result messages each summarised, tick events included; target ≤ 50%`,
  });
  rows.push({
    name: 'pilot digest tokens per decision, no ticks',
    capsule: perDigest,
    baseline: rawNoTicksPerDigest,
    unit: 'tokens',
    ratio: perDigest / rawNoTicksPerDigest,
    note: 'as above, tick events left out of the baseline (the digest still sums them up in a line); target ≤ 50%',
  });
  return rows;
}

/** Model reply end → capsule 'call' at p50 for one run, against the 2 ms target, with pi's own part and ours. */
function overheadRow(name: string, run: PilotRun, about: string): BenchRow {
  const total = run.decisions.map((d) => d.executed - d.modelDone);
  const piP50 = quantile(
    run.decisions.map((d) => d.piSettled - d.modelDone),
    0.5,
  );
  const oursP50 = quantile(
    run.decisions.map((d) => d.executed - d.piSettled),
    0.5,
  );
  const totalP50 = quantile(total, 0.5);
  return {
    name,
    capsule: totalP50,
    baseline: TARGET_P50_MS,
    unit: 'ms',
    ratio: totalP50 / TARGET_P50_MS,
    note: `${run.decisions.length} decisions, ${about}; p99 ${fmt(quantile(total, 0.99))} ms; pi's own part (reply end → gateway sees the run settle) p50 ${fmt(piP50)} ms = ${pct(piP50, totalP50)} of it; pi settled → capsule 'call' p50 ${fmt(oursP50)} ms`,
  };
}

/** Round trips of a bare `ws` echo on loopback, in ms. */
async function wsEchoMs(count: number): Promise<number[]> {
  const echo = await echoOverWebSocket(
    JSON.stringify({ type: 'response', id: 'r1', command: 'get_last_assistant_text', success: true, data: { text: 'x'.repeat(80) } }),
  );
  try {
    for (let i = 0; i < 20; i++) await echo.call(i);
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await echo.call(i);
      samples.push(performance.now() - start);
    }
    return samples;
  } finally {
    await echo.close();
  }
}

function tokens(text: string): number {
  return Math.max(1, encode(text).length);
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('bench pilot: no samples');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const fmt = (value: number): string => value.toPrecision(3);
const pct = (part: number, whole: number): string => `${Math.round((100 * part) / whole)}%`;
