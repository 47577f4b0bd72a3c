// `aicc gateway --daemon SOCKET` looks at the socket before it starts (#25.11): a path no daemon could
// ever listen on (a file, a folder, a path under a file) is refused; a socket not there yet, or one
// nobody listens on, is said on stderr — the gateway still starts, as a daemon may come later. And
// `--daemon=SOCKET` is `--daemon SOCKET`.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayCommand, parseGatewayArgs } from '../../../src/node/cli/gatewayCommand.js';
import { KEY, ORIGIN, tempDir, within } from '../gateway/helpers.js';

const folders: Array<{ remove(): void }> = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const folder of folders.splice(0)) folder.remove();
});
function folder(): string {
  const made = tempDir('aicc-gateway-socket-');
  folders.push(made);
  return made.path;
}

/** Runs the gateway in-process; for one that starts, stops it once it listens. */
async function run(socket: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const controller = new AbortController();
  const io = {
    stdout: { write: (text: string) => ((out += text), text.includes('listening on') && controller.abort()) },
    stderr: { write: (text: string) => (err += text) },
  };
  const code = await within(
    gatewayCommand(['--daemon', socket, '--origin', ORIGIN], io, { env: { AICC_GATEWAY_KEY: KEY }, signal: controller.signal }),
    'the gateway',
  );
  return { code, out, err };
}

describe('aicc gateway --daemon SOCKET', () => {
  it('reads --daemon=SOCKET as --daemon SOCKET', () => {
    const env = { AICC_GATEWAY_KEY: KEY };
    expect(parseGatewayArgs(['--daemon=/run/pi.sock', '--origin', ORIGIN], env)).toEqual(
      parseGatewayArgs(['--daemon', '/run/pi.sock', '--origin', ORIGIN], env),
    );
    expect(parseGatewayArgs(['--origin', ORIGIN, '--daemon=/run/pi.sock'], env)).toMatchObject({ mode: 'daemon', daemonSocket: '/run/pi.sock' });
    expect(parseGatewayArgs(['relay', '--daemon=/s', '--origin', ORIGIN], env)).toBe('--daemon is a mode of its own: drop "relay"');
  });

  it('refuses a path no daemon could listen on: a file, a folder, a path under a file', async () => {
    const dir = folder();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, '');
    mkdirSync(join(dir, 'sub'));
    const cases: Array<[string, RegExp]> = [
      [file, /--daemon .*notes\.txt is a file, not a Unix socket; give the socket the daemon listens on \(pi-daemon serve --socket PATH\)/],
      [join(dir, 'sub'), /--daemon .*sub is a folder, not a Unix socket/],
      [join(file, 'pi.sock'), /--daemon .*notes\.txt\/pi\.sock can never be a socket: .*notes\.txt is a file, not a folder/],
    ];
    for (const [socket, message] of cases) {
      const { code, out, err } = await run(socket);
      expect(code, socket).toBe(2);
      expect(out, socket).toBe('');
      expect(err, socket).toMatch(message);
      expect(err, socket).toMatch(/^aicc gateway: [^\n]*; run `aicc gateway --help`\n$/);
    }
  });

  it('warns, and starts, when no daemon listens there yet: the path is missing (its folder too) or the socket is dead', async () => {
    const dir = folder();
    const missing = join(dir, 'later', 'pi.sock');
    const first = await run(missing);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/listening on ws:\/\/127\.0\.0\.1:\d+\//);
    expect(first.err).toContain(
      `aicc gateway: warning: no daemon socket at ${missing} yet; pages get daemon_unavailable until a daemon listens there (pi-daemon serve --socket ${missing})\n`,
    );
    expect(existsSync(join(dir, 'later'))).toBe(false); // the gateway makes nothing there

    // A socket left behind by a daemon that was killed: it is there, nobody listens.
    const dead = join(dir, 'dead.sock');
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(dead)}, () => console.log('up'))`]);
    await within(new Promise((resolve) => child.stdout.once('data', resolve)), 'the short-lived daemon');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(dead)).toBe(true);
    const second = await run(dead);
    expect(second.code).toBe(0);
    expect(second.err).toContain(
      `aicc gateway: warning: nothing listens on ${dead} (a daemon that stopped left it behind); pages get daemon_unavailable until a daemon listens there (pi-daemon serve --socket ${dead})\n`,
    );
  });

  it('says nothing more when a daemon listens on the socket', async () => {
    const socket = join(folder(), 'pi.sock');
    const daemon = createServer((connection) => connection.end());
    servers.push(daemon);
    await new Promise<void>((resolve) => daemon.listen(socket, resolve));
    const { code, err } = await run(socket);
    expect(code).toBe(0);
    expect(err).not.toMatch(/warning/);
  });
});
