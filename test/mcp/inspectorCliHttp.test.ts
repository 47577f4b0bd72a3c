// The MCP Inspector CLI (a third-party client) against the gateway's Streamable HTTP endpoint: a page
// (a capsule in this process behind a real WebSocket) lends Cleo; each inspector run lists, calls,
// is refused, reads her news — with the gateway key as a bearer header — and a run without the key
// is turned away. (Over stdio: inspectorCli.test.ts. Notifications, which the Inspector CLI cannot
// show, are pinned with the SDK's Client.)

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bindTextWorld } from '../../src/adapters/text/bind.js';
import { TextWorld } from '../../src/adapters/text/world.js';
import { createCapsule, realClock, startDriver } from '../../src/index.js';
import { connectWebSocket } from '../../src/links/websocket.js';
import { startGateway, type Gateway } from '../../src/node/gateway/index.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import { VILLAGE_SPEC, VILLAGER_SESSION } from '../../src/worlds/village/world.js';

const inspector = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');
const KEY = 'inspector-http-key-0123456789ab';
const RUN_MS = 20_000;

let gateway: Gateway;
let capsule: Capsule;
let stopDriver: () => void;
let dir: string;
const logs: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aicc-inspector-http-'));
  gateway = await startGateway({
    target: { kind: 'relay', peersHome: dir },
    origins: ['http://localhost:5173'],
    key: KEY,
    mcp: true,
    log: (line) => logs.push(line),
  });
  capsule = createCapsule({ world: { name: 'Millbrook', kind: 'text' }, clock: realClock(), tickMode: 'fixed', tickRateHz: 10 });
  bindTextWorld(capsule, new TextWorld(VILLAGE_SPEC));
  stopDriver = startDriver(capsule, { pace: 'timer' });
  const link = await connectWebSocket(`${gateway.url}/characters/cleo`, { WebSocket: WebSocket as never, protocols: ['aicc.v0.1', `aicc-key.${KEY}`] });
  capsule.connect(link, { character: 'cleo', ...VILLAGER_SESSION });
  for (let i = 0; i < 100 && capsule.sessions().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
});

afterAll(async () => {
  stopDriver?.();
  capsule?.dispose();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
  expect(logs.join('\n')).not.toContain(KEY);
});

/** One inspector run over HTTP; its working directory is its own build/ folder (inspector#1334). */
async function inspect(headers: string[], ...request: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = [
    inspector,
    '--cli',
    `http://127.0.0.1:${gateway.port}/mcp/cleo`,
    '--transport',
    'http',
    ...headers.flatMap((header) => ['--header', header]),
    ...request,
  ];
  const child = spawn(process.execPath, argv, { cwd: dirname(inspector), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS);
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const keyed = [`Authorization: Bearer ${KEY}`];
const json = (run: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
};

describe('the MCP Inspector CLI, over the gateway’s HTTP endpoint', () => {
  it('lists Cleo’s tools', async () => {
    const { tools } = json(await inspect(keyed, '--method', 'tools/list')) as { tools: Array<{ name: string }> };
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['look', 'go', 'say', 'observe']));
  }, 30_000);

  it('calls look, and gets a bad go back as an isError result that says what to do', async () => {
    const look = json(await inspect(keyed, '--method', 'tools/call', '--tool-name', 'look')) as { structuredContent: { name: string } };
    expect(look.structuredContent.name).toBe('Tavern');
    const bad = json(await inspect(keyed, '--method', 'tools/call', '--tool-name', 'go', '--tool-arg', 'to=south')) as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/^go refused \(invalid_input\): .*What to do: fix the arguments/);
  }, 60_000);

  it('reads her news', async () => {
    const { contents } = json(await inspect(keyed, '--method', 'resources/read', '--uri', 'aicc://cleo/news')) as { contents: Array<{ text: string }> };
    expect(contents[0]!.text).toMatch(/^tick \d+/);
  }, 30_000);

  it('is turned away without the key, and the answer does not hold it', async () => {
    const run = await inspect([], '--method', 'tools/list');
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/401|no gateway key/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  }, 30_000);
});
