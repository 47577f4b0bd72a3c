// The real pi 1.x drives a village character with native tool calls over MCP. A page (here a capsule
// in this process behind a real WebSocket) lends Cleo to the gateway; pi, configured with the
// gateway's MCP endpoint in its mcp.json (exposure direct), calls her tools as its own. The model is
// the local stub, scripted to look, make an invalid call, read the isError result, correct itself,
// and finish. pi 1.x needs Node 22: the test runs when AICC_E2E_PI1_CLI and AICC_E2E_PI1_NODE are
// set (npm test sets both from the dev dependencies), and fails under CI=true when they are not.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bindTextWorld } from '../../src/adapters/text/bind.js';
import { TextWorld } from '../../src/adapters/text/world.js';
import { createCapsule, realClock, startDriver } from '../../src/index.js';
import { connectWebSocket } from '../../src/links/websocket.js';
import { startGateway, type Gateway } from '../../src/node/gateway/index.js';
import type { CallRecord } from '../../src/runtime/calls.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import { VILLAGE_SPEC, VILLAGER_SESSION } from '../../src/worlds/village/world.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir, type StubModel } from './stubModel.js';

const PI1_CLI = process.env.AICC_E2E_PI1_CLI;
const PI1_NODE = process.env.AICC_E2E_PI1_NODE;
const missing =
  PI1_CLI === undefined || PI1_NODE === undefined
    ? 'needs pi 1.x and Node 22 (AICC_E2E_PI1_CLI, AICC_E2E_PI1_NODE; npm test sets them from the dev dependencies)'
    : undefined;
if (missing !== undefined && process.env.CI !== 'true') process.stderr.write(`skipped "pi 1.x native tools over MCP": ${missing}\n`);

const KEY = 'native-mcp-key-0123456789abcdef';
/** pi names a server's tools mcp__<server>__<tool>. */
const TOOL = (name: string): string => `mcp__village__${name}`;

let gateway: Gateway;
let stub: StubModel;
let capsule: Capsule;
let world: TextWorld;
let stopDriver: () => void;
let dir: string;
const calls: CallRecord[] = [];

describe.skipIf(missing !== undefined && process.env.CI !== 'true')('pi 1.x native tools over MCP', () => {
  beforeAll(async () => {
    if (missing !== undefined) throw new Error(`${missing}; under CI it must run`);
    dir = mkdtempSync(join(tmpdir(), 'aicc-pi-native-'));
    stub = await startStubModel({ fallbackReply: 'Done for now.' });
    gateway = await startGateway({ target: { kind: 'relay', peersHome: dir }, origins: ['http://localhost:5173'], key: KEY, mcp: true });
    // The game page: the village on the wall clock; calls run at the next tick (10 Hz).
    capsule = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: realClock(), tickMode: 'fixed', tickRateHz: 10 });
    world = new TextWorld(VILLAGE_SPEC);
    bindTextWorld(capsule, world);
    capsule.on('call', (record) => void calls.push(record));
    stopDriver = startDriver(capsule, { pace: 'timer' });
    const link = await connectWebSocket(`${gateway.url}/characters/cleo`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1', `aicc-key.${KEY}`] });
    capsule.connect(link, { character: 'cleo', ...VILLAGER_SESSION });
    // pi's own folder: the stub model, and the gateway's MCP endpoint for Cleo, her tools declared directly.
    const agentDir = join(dir, 'agent');
    writePiAgentDir(agentDir, stub.baseUrl);
    const mcp = {
      mcpServers: { village: { url: `http://127.0.0.1:${gateway.port}/mcp/cleo`, headers: { Authorization: `Bearer ${KEY}` }, exposure: 'direct' } },
    };
    writeFileSync(join(agentDir, 'mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);
  }, 30_000);

  afterAll(async () => {
    stopDriver?.();
    capsule?.dispose();
    await gateway?.close();
    await stub?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('looks, corrects an invalid call after its isError result, and walks Cleo to the market', async () => {
    stub.script(
      { text: '', toolCalls: [{ name: TOOL('look'), arguments: {} }] },
      // Schema-valid, so pi sends it on; the game refuses it: the tavern has no way north.
      { text: '', toolCalls: [{ name: TOOL('go'), arguments: { direction: 'north' } }] },
      { text: '', toolCalls: [{ name: TOOL('go'), arguments: { direction: 'south' } }] },
      'Cleo is at the market now.',
    );
    const pi = spawn(
      PI1_NODE!,
      [
        PI1_CLI!,
        '--print',
        '--no-session',
        '--no-builtin-tools',
        '--provider',
        STUB_PROVIDER,
        '--model',
        STUB_MODEL_ID,
        'You are Cleo, a bard. Go to the market.',
      ],
      {
        cwd: dir,
        env: { ...process.env, PI_CODING_AGENT_DIR: join(dir, 'agent'), HOME: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    pi.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
    pi.stderr.on('data', (chunk: Buffer) => (out += String(chunk)));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => pi.kill('SIGKILL'), 60_000);
      pi.once('exit', (exit) => (clearTimeout(timer), resolve(exit)));
    });
    expect(code, out).toBe(0);
    expect(out).toContain('Cleo is at the market now.');

    // The model was offered Cleo's tools as native tools.
    const offered = (stub.requests[0]?.body.tools ?? []).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining([TOOL('look'), TOOL('go'), TOOL('observe')]));
    // Three native calls reached the capsule as aicc tool calls; the invalid one was refused there.
    expect(calls.map((record) => [record.tool, record.result.ok ? 'ok' : record.result.error?.code])).toEqual([
      ['look', 'ok'],
      ['go', 'execution_failed'],
      ['go', 'ok'],
    ]);
    // The model read the refusal, with what to do, before it corrected the call.
    const toolResults = (stub.requests[2]?.body.messages ?? []).filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content));
    expect(toolResults.at(-1)).toMatch(/go refused \(execution_failed\).*What to do: /);
    expect(world.roomOf('cleo').id).toBe('market');
  }, 90_000);
});
