import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayCommand, parseGatewayArgs } from '../../../src/node/cli/gatewayCommand.js';
import { command, connectDaemonBrowser, responseTo, startFakeDaemon } from './daemonHelpers.js';
import { KEY, ORIGIN, tempDir, within } from './helpers.js';

/** Runs `aicc gateway` in-process until stopped; `url()` waits for its listening line. */
function run(argv: string[], env: NodeJS.ProcessEnv = { AICC_GATEWAY_KEY: KEY }) {
  let out = '';
  let err = '';
  const controller = new AbortController();
  const code = gatewayCommand(
    argv,
    { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
    { env, signal: controller.signal },
  );
  const url = (): Promise<string> =>
    within(
      (async () => {
        for (;;) {
          const match = /listening on (ws:\/\/\S+)\n/.exec(out);
          if (match) return match[1]!;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
      `the listening line (stderr: ${err})`,
    );
  return { code, url, out: () => out, err: () => err, stop: () => controller.abort() };
}

describe('aicc gateway --daemon', () => {
  it('parses --daemon SOCKET as its own mode, with the key from the environment', () => {
    expect(parseGatewayArgs(['--daemon', '/run/pi.sock', '--origin', ORIGIN], { AICC_GATEWAY_KEY: KEY, PI_PEERS_HOME: '/peers' })).toEqual({
      mode: 'daemon',
      daemonSocket: '/run/pi.sock',
      origins: [ORIGIN],
      port: 0,
      key: KEY,
    });
    expect(
      parseGatewayArgs(['--origin', ORIGIN, '--port', '8788', '--daemon', '/run/pi.sock', '--max-frame', '2048'], { AICC_GATEWAY_KEY: KEY }),
    ).toMatchObject({ mode: 'daemon', port: 8788, maxFrame: 2048 });
    expect(parseGatewayArgs(['--daemon', '/run/pi.sock', '--daemon-stored-sessions', '--origin', ORIGIN], { AICC_GATEWAY_KEY: KEY })).toMatchObject({
      mode: 'daemon',
      storedSessions: true,
      origins: [ORIGIN],
    });
    expect(parseGatewayArgs(['--daemon', '/run/pi.sock', '--origin', ORIGIN, '--daemon-admin'], { AICC_GATEWAY_KEY: KEY })).toMatchObject({
      mode: 'daemon',
      admin: true,
    });
    expect(parseGatewayArgs(['--daemon', '/run/pi.sock', '--origin', ORIGIN], { AICC_GATEWAY_KEY: KEY })).not.toHaveProperty('admin');
  });

  it.each([
    [['relay', '--daemon', '/s', '--origin', ORIGIN], '--daemon is a mode of its own: drop "relay"'],
    [['--daemon', '/s', '--origin', ORIGIN, '--peers-home', '/p'], '--peers-home is for relay mode'],
    [['--daemon', '/s', '--origin', ORIGIN, '--pi-bin', 'pi'], '--pi-bin is for host mode'],
    [['--daemon', '/s'], 'name at least one --origin whose pages may connect, e.g. --origin http://localhost:5173'],
    [['--origin', ORIGIN, '--daemon'], '--daemon expects a value'],
    [['--origin', ORIGIN], 'unknown mode "--origin"; choose relay, host, model or --daemon SOCKET'],
    [['--daemon', '/s', 'relay', '--origin', ORIGIN], 'unexpected "relay"; a mode (relay, host) comes first, and every option is --NAME VALUE'],
    [['host', '--origin', ORIGIN, '--daemon-stored-sessions'], '--daemon-stored-sessions is for --daemon mode'],
    [['relay', '--origin', ORIGIN, '--daemon-admin'], '--daemon-admin is for --daemon mode'],
  ])('refuses %j in one line with exit code 2', async (argv, complaint) => {
    const r = run(argv);
    expect(await r.code).toBe(2);
    expect(r.err()).toBe(`aicc gateway: ${complaint}; run \`aicc gateway --help\`\n`);
  });

  it('explains daemon mode in --help: the flag, the subprotocol, the refusals, who reaches which session, and the bound', async () => {
    const r = run(['--help']);
    expect(await r.code).toBe(0);
    const texts = [
      'aicc gateway --daemon SOCKET --origin ORIGIN',
      "'pi-daemon.v2'",
      'invalid_json',
      'invalid_field',
      'invalid_utf8',
      'line_too_large',
      'denied_by_gateway',
      '--daemon-stored-sessions',
      'daemon_unavailable',
      '1048576 bytes wait',
      '"operation":"handshake"',
    ];
    texts.push(
      'each page reaches only the sessions its own',
      'connection opened',
      'until that connection ends',
      'reconnects opens its sessions',
      '--daemon-admin',
      'drain',
      'not_opened',
      'other_page',
      'admin_only',
    );
    for (const text of texts) expect(r.out()).toContain(text);
  });

  it('passes --daemon-admin on: an admin gateway lets a page drain the daemon, another does not', async () => {
    const dir = tempDir('aicc-daemon-cmd-');
    const daemon = await startFakeDaemon(join(dir.path, 'd.sock'));
    for (const admin of [false, true]) {
      const r = run(['--daemon', daemon.path, '--origin', ORIGIN, ...(admin ? ['--daemon-admin'] : [])]);
      const client = connectDaemonBrowser(await r.url());
      client.send(command('d1', 'drain'));
      expect(await responseTo(client, 'd1')).toMatchObject(
        admin ? { ok: true } : { ok: false, error: { code: 'denied_by_gateway', details: { rule: 'admin_only' } } },
      );
      expect(r.err()).toContain(
        admin ? `relaying pi-daemon protocol v2 to ${daemon.path} (admin: pages may drain it)` : `relaying pi-daemon protocol v2 to ${daemon.path} on`,
      );
      client.close();
      r.stop();
      expect(await r.code).toBe(0);
    }
    expect(daemon.lines.map((line) => (JSON.parse(line) as { operation: string }).operation)).toEqual(['drain']);
    await daemon.close();
    dir.remove();
  });

  it('relays to the daemon until stopped, with --max-frame as the line limit, and logs each connection without the key', async () => {
    const dir = tempDir('aicc-daemon-cmd-');
    const daemon = await startFakeDaemon(join(dir.path, 'd.sock'));
    const r = run(['--daemon', daemon.path, '--origin', ORIGIN, '--max-frame', '2048']);
    const url = await r.url();
    expect(r.err()).toBe(`aicc gateway: relaying pi-daemon protocol v2 to ${daemon.path} on ${url} for origin ${ORIGIN}\n`);
    const client = connectDaemonBrowser(url);
    client.send(command('r1', 'handshake'));
    expect(await responseTo(client, 'r1')).toMatchObject({ ok: true, hostInstanceId: 'fake-host' });
    client.send(JSON.stringify(command('big', 'wake', { prompt: 'p'.repeat(2100) })));
    expect((await within(client.closed, 'the close')).code).toBe(1009);
    expect(client.records.at(-1)).toMatchObject({ ok: false, error: { code: 'line_too_large' } });
    r.stop();
    expect(await r.code).toBe(0);
    expect(r.err()).toMatch(
      /aicc gateway: #1 origin http:\/\/localhost:5173 pi-daemon relay: closed \(1009\): aicc gateway: a record of \d+ bytes is over the daemon's line limit of 2048 bytes/,
    );
    expect(r.out() + r.err()).not.toContain(KEY);
    await daemon.close();
    dir.remove();
  });
});
