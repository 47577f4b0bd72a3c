// What `aicc gateway --daemon SOCKET` says about the socket before it starts. A daemon may start
// after the gateway — pi-daemon makes its socket's folder itself (mkdir -p) and replaces a socket
// a dead daemon left — so a path that is not there yet, or a socket nobody listens on, only gets a
// warning: pages get daemon_unavailable until a daemon listens, and the gateway is right to wait.
// A path no daemon could ever listen on is refused: a file or a folder (pi-daemon itself refuses to
// replace anything but a socket), or a path under a file (its folder can never be made).

import { existsSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, resolve } from 'node:path';

/** How long a socket may take to accept before it counts as listening anyway (a busy daemon is a daemon). */
const PROBE_MS = 1000;

/** Says on stderr what checkDaemonSocket found; 2 (bad usage) when the gateway must not start. */
export async function reportDaemonSocket(path: string, stderr: { write(text: string): unknown }): Promise<2 | undefined> {
  const verdict = await checkDaemonSocket(path);
  if (verdict !== undefined && 'refuse' in verdict) {
    stderr.write(`aicc gateway: ${verdict.refuse}; run \`aicc gateway --help\`\n`);
    return 2;
  }
  if (verdict !== undefined) stderr.write(`aicc gateway: warning: ${verdict.warn}\n`);
  return undefined;
}

/** A refusal (the gateway does not start) or a warning (it does), or nothing to say. */
export type SocketVerdict = { refuse: string } | { warn: string } | undefined;

export async function checkDaemonSocket(path: string): Promise<SocketVerdict> {
  const waiting = `pages get daemon_unavailable until a daemon listens there (pi-daemon serve --socket ${path})`;
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { warn: `cannot look at ${path} (${(error as Error).message}); ${waiting}` };
    const blocker = fileOnTheWay(path);
    if (blocker !== undefined) return { refuse: `--daemon ${path} can never be a socket: ${blocker} is a file, not a folder; check the path` };
    return { warn: `no daemon socket at ${path} yet; ${waiting}` };
  }
  if (!stat.isSocket()) {
    return {
      refuse: `--daemon ${path} is a ${stat.isDirectory() ? 'folder' : 'file'}, not a Unix socket; give the socket the daemon listens on (pi-daemon serve --socket PATH)`,
    };
  }
  const refused = await connects(path);
  if (refused === undefined) return undefined;
  return refused === 'ECONNREFUSED'
    ? { warn: `nothing listens on ${path} (a daemon that stopped left it behind); ${waiting}` }
    : { warn: `cannot connect to ${path} (${refused}); ${waiting}` };
}

/** The nearest existing folder on `path`'s way, when it is a file instead. */
function fileOnTheWay(path: string): string | undefined {
  for (let folder = dirname(resolve(path)); folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(folder)) return statSync(folder).isDirectory() ? undefined : folder;
  }
  return undefined;
}

/** Undefined once a connection to the socket opens (it is closed at once, as pi-daemon's own check does), else the error's code. */
function connects(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (result: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(undefined), PROBE_MS);
    socket.once('connect', () => done(undefined));
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}
