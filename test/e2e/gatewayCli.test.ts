// `aicc gateway host` as a user runs it, with the real pi 0.73.1 and the stub model: flags in,
// the listening line out, a page's prompt answered, Ctrl-C (here: an abort signal) exits 0.

import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { gatewayCommand } from '../../src/node/cli/gatewayCommand.js';
import { BrowserClient, KEY, ORIGIN, tempDir } from '../node/gateway/helpers.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir, type StubModel } from './stubModel.js';
import { PI_CLI } from './piTargets.js';

let stub: StubModel;
let dir: ReturnType<typeof tempDir>;

beforeEach(async () => {
  stub = await startStubModel();
  dir = tempDir('aicc-e2e-cli-');
  writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
});

afterEach(async () => {
  await stub.close();
  dir.remove();
});

it('aicc gateway host serves the real pi to a page until stopped', async () => {
  let out = '';
  let err = '';
  const stop = new AbortController();
  const argv = [
    'host',
    '--origin',
    ORIGIN,
    '--pi-bin',
    PI_CLI,
    '--provider',
    STUB_PROVIDER,
    '--model',
    STUB_MODEL_ID,
    '--agent-dir',
    join(dir.path, 'agent'),
    '--system-prompt',
    'You are Cleo the bard.',
    '--label',
    'Cleo',
  ];
  const exit = gatewayCommand(
    argv,
    { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
    { env: { ...process.env, AICC_GATEWAY_KEY: KEY }, signal: stop.signal },
  );

  const deadline = Date.now() + 30_000;
  while (!/listening on ws:\/\//.test(out)) {
    if (Date.now() > deadline) throw new Error(`no listening line; stderr: ${err}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /listening on (ws:\/\/\S+)/.exec(out)![1]!;
  stub.script('A ballad for the square!');
  const page = BrowserClient.connect(url);
  expect(await page.hello()).toMatchObject({ success: true, data: { agent: { label: 'Cleo', settled: 0 } } });
  expect(await page.request({ id: 'sing', type: 'prompt', message: 'Sing something.' })).toMatchObject({ success: true });
  for (;;) {
    const state = (await page.request({ id: `s${Date.now()}`, type: 'get_state' })).data as { idle: boolean; settled: number };
    if (state.settled === 1 && state.idle) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(await page.request({ id: 't', type: 'get_last_assistant_text' })).toMatchObject({ data: { text: 'A ballad for the square!' } });
  stop.abort();
  expect(await exit).toBe(0);
  expect((await page.closed).code).toBe(1001);
  const lines = err.trimEnd().split('\n');
  expect(lines[0]).toBe(`aicc gateway: hosting pi on ${url} for origin ${ORIGIN}`);
  expect(lines[1]).toMatch(
    /^aicc gateway: #1 origin http:\/\/localhost:5173 pi host: closed \(1001\): the gateway is shutting down; \d+ records in, \d+ out, \d+\.\d s$/,
  );
  expect(lines).toHaveLength(2);
  expect(out + err).not.toContain(KEY);
}, 60_000);
