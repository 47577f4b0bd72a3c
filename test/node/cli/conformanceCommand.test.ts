import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { webSocketLink } from '../../../src/links/websocket.js';
import { main } from '../../../src/node/cli/main.js';
import { createCapsule } from '../../../src/runtime/capsule.js';
import { ajvValidators } from '../../../src/validators/ajv.js';

async function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(['conformance', ...argv], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}
const fixture = (name: string) => fileURLToPath(new URL(`../../conformance/fixtures/${name}.ts`, import.meta.url));

let server: WebSocketServer | undefined;
afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('aicc conformance', () => {
  it('runs every level against a module target and exits 0 when all pass', async () => {
    const { code, out } = await run([fixture('eventWorld')]);
    expect(out).toMatch(/^aicc\/0\.1 conformance: fixture world/);
    expect(out).toMatch(/L1 wire and manifest: \d+ passed, 0 failed, 0 n\/a/);
    expect(out).toMatch(/L3 time and continuity: \d+ passed, 0 failed, 0 n\/a/);
    expect(out).toContain('conformant: every applicable check passed');
    expect(code).toBe(0);
  }, 60_000);

  it('runs against a bridge behind a real WebSocket on 127.0.0.1; checks that need a clock or tools report n/a', async () => {
    const capsule = createCapsule({ world: { name: 'networked', kind: 'abstract' }, validators: ajvValidators(), tickMode: 'event' });
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server!.once('listening', resolve));
    let n = 0;
    server.on('connection', (socket) => capsule.connect(webSocketLink(socket), { character: `agent${++n}` }));
    const port = (server.address() as { port: number }).port;
    const { code, out } = await run([`ws://127.0.0.1:${port}/`, '--level', '1,2']);
    capsule.dispose();
    expect(out).toMatch(/L1 wire and manifest: 17 passed, 0 failed, 0 n\/a/);
    expect(out).toMatch(/n\/a +L2\.disabled .*\(needs registerTool\)/);
    expect(out).toMatch(/pass +L2\.unknown_tool/);
    expect(code).toBe(0);
  }, 60_000);

  it('runs one check with --only, and prints JSON with --json', async () => {
    const { code, out } = await run([fixture('eventWorld'), '--only', 'L2.timeout', '--json']);
    const report = JSON.parse(out);
    expect(report.results.map((r: { id: string; outcome: string }) => [r.id, r.outcome])).toEqual([['L2.timeout', 'passed']]);
    expect(code).toBe(0);
  });

  it('exits 2 on bad usage and on a module that exports no bridge', async () => {
    expect(await run([])).toMatchObject({ code: 2, err: expect.stringMatching(/name one target/) });
    expect(await run([fixture('eventWorld'), '--level', '4'])).toMatchObject({ code: 2, err: expect.stringMatching(/--level takes 1, 2 and 3/) });
    expect(await run([fixture('notABridge')])).toMatchObject({ code: 2, err: expect.stringMatching(/exports no bridge/) });
    expect(await run(['/no/such/module.js'])).toMatchObject({ code: 2, err: expect.stringMatching(/cannot load/) });
    expect((await run(['--help'])).out).toMatch(/^aicc conformance — check an aicc\/0\.1 bridge/);
  });
});
