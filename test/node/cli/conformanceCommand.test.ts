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
    expect(out).toMatch(/\nconformant at L1, L2, L3: every check passed\n$/);
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
    const json = JSON.parse((await run([`ws://127.0.0.1:${port}/`, '--level', '2', '--json'])).out);
    capsule.dispose();
    expect(json).toMatchObject({ passed: true, complete: false, verdict: 'incomplete' });
    expect(out).toMatch(/L1 wire and manifest: 17 passed, 0 failed, 0 n\/a/);
    expect(out).toMatch(/n\/a +L2\.disabled .*\(needs registerTool\)/);
    expect(out).toMatch(/pass +L2\.unknown_tool/);
    // L2's n/a checks leave it without a verdict: the last line never calls it conformant (#25.13).
    expect(out).toMatch(/\nconformant at L1; no verdict for L2: no check failed, but \d+ of \d+ could not run \(n\/a\)[^\n]*\n$/);
    expect(out).not.toMatch(/conformant at [^;]*L2/);
    expect(code).toBe(0);
  }, 60_000);

  it('runs one check with --only, and prints JSON with --json', async () => {
    const { code, out } = await run([fixture('eventWorld'), '--only', 'L2.timeout', '--json']);
    const report = JSON.parse(out);
    expect(report.results.map((r: { id: string; outcome: string }) => [r.id, r.outcome])).toEqual([['L2.timeout', 'passed']]);
    expect(report).toMatchObject({ passed: true, complete: true, verdict: 'conformant' });
    expect(code).toBe(0);
  });

  it('says once that it could not connect to a ws:// target, with no check run, and exits 2 (#25.11)', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => probe.once('listening', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const { code, out, err } = await run([`ws://127.0.0.1:${port}/`]);
    expect(out).toBe('');
    expect(err).toMatch(
      new RegExp(
        `^aicc conformance: could not connect to ws://127\\.0\\.0\\.1:${port}/ \\(.*ECONNREFUSED.*\\); is the bridge running and listening there\\? Start it, or fix the host, port or path\n$`,
      ),
    );
    expect(code).toBe(2);
  });

  it('names the answer of a server that is not a bridge (a wrong path), once', async () => {
    const http = await import('node:http');
    const plain = http.createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const port = (plain.address() as { port: number }).port;
    try {
      const { code, out, err } = await run([`ws://127.0.0.1:${port}/nope`, '--level', '1']);
      expect(out).toBe('');
      expect(err).toMatch(/^aicc conformance: could not connect to ws:\/\/127\.0\.0\.1:\d+\/nope \(Unexpected server response: 404\); is the bridge running/);
      expect(err.split('\n')).toHaveLength(2);
      expect(code).toBe(2);
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('exits 2 on bad usage and on a module that exports no bridge', async () => {
    expect(await run([])).toMatchObject({ code: 2, err: expect.stringMatching(/name one target/) });
    expect(await run([fixture('eventWorld'), '--level', '4'])).toMatchObject({ code: 2, err: expect.stringMatching(/--level takes 1, 2 and 3/) });
    expect(await run([fixture('notABridge')])).toMatchObject({ code: 2, err: expect.stringMatching(/exports no bridge/) });
    expect(await run(['/no/such/module.js'])).toMatchObject({ code: 2, err: expect.stringMatching(/cannot load/) });
    // Options a module target would ignore, and a resume place that is no WebSocket URL, are refused before any check.
    expect(await run([fixture('eventWorld'), '--binary'])).toMatchObject({ code: 2, out: '', err: expect.stringMatching(/--binary is for ws:\/\/ targets/) });
    expect(await run(['ws://127.0.0.1:1/', '--resume-url', '127.0.0.1:2'])).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringMatching(/--resume-url takes a ws:\/\/ or wss:\/\/ URL; got "127\.0\.0\.1:2"/),
    });
    expect((await run(['--help'])).out).toMatch(/^aicc conformance — check an aicc\/0\.1 bridge/);
  });
});
