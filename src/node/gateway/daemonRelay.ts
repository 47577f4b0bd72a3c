// Daemon mode: joins one browser connection to its own connection to a pi daemon's Unix socket
// (pi-daemon protocol v2: one JSON record per NDJSON line, lines up to 1 MiB). Each text frame from
// the browser becomes one line to the daemon and each line from the daemon one text frame back,
// byte for byte; what the relay checks on the way is in daemonRecords.ts.
//
// Memory stays bounded in both directions by backpressure rather than by dropping the slow side:
// when more than `highWaterBytes` wait for the browser, the relay stops reading the daemon's socket
// until the browser has taken them (the daemon then sees a full socket, as if the browser were on it
// directly); when more than `highWaterBytes` wait for the daemon, it stops reading the browser. So
// one connection holds at most about highWaterBytes + one line + one socket read (64 KiB) per
// direction, plus, while the daemon's socket is opening, a backlog of DAEMON_MAX_BACKLOG records.

import { createConnection, type Socket } from 'node:net';
import type { Link } from '../../links/link.js';
import { DEFAULT_MAX_LINE_BYTES, socketLink } from '../socketLink.js';
import { CLOSE } from './access.js';
import type { BrowserConnection } from './browser.js';
import { checkPolicy, gatewayError, GATEWAY_INSTANCE_ID, hostInstanceIdOf, readFrame, type CommandIds, type DaemonRelayErrorCode } from './daemonRecords.js';

export interface DaemonRelayOptions {
  /** The daemon's Unix socket (`pi-daemon serve --socket PATH`). */
  socketPath: string;
  /** How long to wait for the daemon's socket (default 5 s). */
  connectTimeoutMs?: number;
  /** Longest record either way, in bytes (default 1 MiB, the daemon's own line limit). */
  maxLineBytes?: number;
  /** Bytes queued toward one side above which the relay stops reading the other (default 1 MiB). */
  highWaterBytes?: number;
  /**
   * Let pages open sessions stored on the host: session modes new/open/continue, session paths
   * and agentDir. Default false: memory sessions only (see checkPolicy).
   */
  storedSessions?: boolean;
}

export const DAEMON_HIGH_WATER_BYTES = 1024 * 1024;
/** Records (and bytes) a browser may send while the daemon's socket is still being opened. */
export const DAEMON_MAX_BACKLOG = 256;
export const DAEMON_MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

/** The one thing a browser is told when the daemon cannot be reached; it names no path. */
const UNREACHABLE = "the pi daemon is not reachable; is `pi-daemon serve` running on the gateway's --daemon socket?";

/** Says what is wrong with the options, or undefined if they will do; startGateway checks them once. */
export function checkDaemonRelayOptions(options: DaemonRelayOptions): string | undefined {
  if (typeof options.socketPath !== 'string' || options.socketPath === '') return "the daemon target needs socketPath, the daemon's Unix socket";
  for (const name of ['connectTimeoutMs', 'maxLineBytes', 'highWaterBytes'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) return `the daemon target's ${name} must be a whole number above 0, got ${String(value)}`;
  }
  return undefined;
}

/** Serves one browser as a relay to the daemon; closes both ends itself. */
export function relayDaemon(browser: BrowserConnection, options: DaemonRelayOptions): void {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const highWater = options.highWaterBytes ?? DAEMON_HIGH_WATER_BYTES;
  browser.role = 'pi-daemon relay';
  let stage: 'connecting' | 'open' | 'closed' = 'connecting';
  let socket: Socket | undefined;
  let daemon: Link | undefined;
  /** Lines from the browser that arrived before the daemon's socket was open, in order. */
  let backlog: string[] = [];
  let backlogBytes = 0;
  /** Reading the daemon is paused because the browser is behind, or the browser because the daemon is. */
  let daemonPaused = false;
  let browserPaused = false;
  /** Whose name the gateway's refusals carry: its own until the daemon's first record names the host. */
  let hostInstanceId: string | undefined;

  const finish = (code: number, reason: string): void => {
    if (stage === 'closed') return;
    stage = 'closed';
    daemon?.close('the browser connection ended');
    // A paused browser socket would not read the close handshake's answer.
    if (browserPaused) browser.socket.resume();
    browser.close(code, reason);
  };
  const answer = (ids: CommandIds, code: DaemonRelayErrorCode, message: string, retryable = false): void => {
    browser.send(gatewayError(ids, hostInstanceId ?? GATEWAY_INSTANCE_ID, code, message, retryable));
  };

  const forward = (line: string): void => {
    daemon?.send(line);
    if (!browserPaused && daemon !== undefined && daemon.bufferedAmount > highWater) {
      browserPaused = true;
      browser.socket.pause();
    }
  };
  /** Runs as each frame leaves for the browser: once it has caught up, read the daemon again. */
  const written = (): void => {
    if (daemonPaused && stage === 'open' && browser.socket.bufferedAmount <= highWater / 2) {
      daemonPaused = false;
      socket?.resume();
    }
  };

  browser.listen({
    frame(data) {
      if (stage === 'closed') return;
      const read = readFrame(data, maxLineBytes);
      if (!read.ok) {
        // Like the daemon with such a line: an error record, then the connection ends.
        answer({}, read.code, read.message);
        return finish(read.code === 'line_too_large' ? CLOSE.tooBig : CLOSE.badRequest, `aicc gateway: ${read.message}`);
      }
      const denied = checkPolicy(read.record, { storedSessions: options.storedSessions === true });
      if (denied !== undefined) return answer(read.ids, 'denied_by_gateway', denied);
      if (stage === 'open') return forward(read.line);
      backlogBytes += Buffer.byteLength(read.line);
      if (backlog.length >= DAEMON_MAX_BACKLOG || backlogBytes > DAEMON_MAX_BACKLOG_BYTES) {
        return finish(CLOSE.tryAgainLater, `more than ${DAEMON_MAX_BACKLOG} records or ${DAEMON_MAX_BACKLOG_BYTES} bytes before the daemon's socket opened; send fewer at once`);
      }
      backlog.push(read.line);
    },
    close(code, reason) {
      if (stage === 'closed') return;
      stage = 'closed';
      daemon?.close(`the browser left (${code}: ${reason})`);
    },
  });

  void openSocket(options.socketPath, options.connectTimeoutMs ?? 5000).then(
    (connected) => {
      if (stage !== 'connecting') return void connected.destroy();
      socket = connected;
      const link = socketLink(connected, { maxLineBytes });
      daemon = link;
      connected.on('drain', () => {
        if (browserPaused && stage === 'open') {
          browserPaused = false;
          browser.socket.resume();
        }
      });
      link.listen({
        message(frame) {
          if (typeof frame !== 'string' || stage === 'closed') return;
          // Parsed only until a record names the host (every daemon record does), so once per connection.
          hostInstanceId ??= hostInstanceIdOf(frame);
          browser.send(frame, written);
          if (!daemonPaused && browser.socket.bufferedAmount > highWater) {
            daemonPaused = true;
            connected.pause();
          }
        },
        close(reason) {
          finish(CLOSE.agentGone, `the connection to the pi daemon ended: ${reason}`);
        },
      });
      stage = 'open';
      for (const line of backlog) forward(line);
      backlog = [];
    },
    () => {
      if (stage !== 'connecting') return;
      // One record, answering no request: the close that follows fails whatever the page awaits.
      answer({}, 'daemon_unavailable', UNREACHABLE, true);
      finish(CLOSE.agentGone, UNREACHABLE);
    },
  );
}

/** Connects to a Unix socket; the raw socket, because the relay pauses and resumes it. */
function openSocket(path: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      // The 'error' listener stays: until socketLink adds its own, an error must not go unheard.
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
