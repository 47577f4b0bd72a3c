// Daemon mode: joins one browser connection to its own connection to a pi daemon's Unix socket
// (pi-daemon protocol v2: one JSON record per NDJSON line, lines up to 1 MiB). Each text frame from
// the browser becomes one line to the daemon and each line from the daemon one text frame back,
// byte for byte but for the gateway's namespace, put in front of the session a command names and
// taken out of what the daemon sends back; what the relay checks on the way is in daemonRecords.ts
// (frames, what a page may open) and daemonIsolation.ts (which sessions a page may reach, the
// namespace). Of the daemon's lines the relay reads the responses, to know which requests are in
// flight: an open's answer makes the session the page's (sessionOwners.ts), and a handshake's has
// its host snapshot cut down to the page's own sessions. Events go on unparsed.
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
import { echoedRequestId, filterHostSnapshot, fromDaemon, inNamespace, judgeCommand, toDaemon, type IsolationContext } from './daemonIsolation.js';
import { checkPolicy, gatewayError, GATEWAY_INSTANCE_ID, hostInstanceIdOf, readFrame, type CommandIds, type DaemonRelayErrorCode } from './daemonRecords.js';
import type { SessionOwners } from './sessionOwners.js';

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
  /**
   * Let pages drain the daemon, read its host-wide status (every session on the host), send
   * operations the gateway does not know, and see every session in a handshake's host snapshot.
   * Default false. Pages still reach only the sessions they opened (daemonIsolation.ts).
   */
  admin?: boolean;
}

/** What the relays of one gateway share, and what the gateway knows that they need. */
export interface DaemonRelayShared {
  /** Who owns which session, across the gateway's pages, and the gateway's namespace on the daemon. */
  owners: SessionOwners;
  /** The largest WebSocket message the gateway takes (ws closes with 1009 past it). */
  maxMessageBytes: number;
  /**
   * A refusal's message with the gateway key taken out: messages quote what a page sent (a
   * sessionId, an operation), and a page may have pasted the key there by mistake.
   */
  redact(message: string): string;
}

export const DAEMON_HIGH_WATER_BYTES = 1024 * 1024;
/** Records (and bytes) a browser may send while the daemon's socket is still being opened. */
export const DAEMON_MAX_BACKLOG = 256;
export const DAEMON_MAX_BACKLOG_BYTES = 4 * 1024 * 1024;
/**
 * Requests of one page the daemon has not answered yet, at most: beyond it the gateway answers
 * `connection_busy` (retryable). The daemon itself takes 64 at once (pi-daemon 0.3.3); the rest
 * are the requests on their way, held back by backpressure.
 */
export const DAEMON_MAX_IN_FLIGHT = 1024;

/** An answer the relay reads before the page does: an open's, or a handshake's. */
type Awaited = { kind: 'open'; sessionId: string } | { kind: 'handshake' };

/** How a daemon line that is a response starts its `kind` (JSON.stringify's spacing, or any other). */
const RESPONSE_KIND = /"kind"\s*:\s*"response"/;

/** The one thing a browser is told when the daemon cannot be reached; it names no path. */
const UNREACHABLE = "the pi daemon is not reachable; is `pi-daemon serve` running on the gateway's --daemon socket?";

/** Says what is wrong with the options, or undefined if they will do; startGateway checks them once. */
export function checkDaemonRelayOptions(options: DaemonRelayOptions): string | undefined {
  if (typeof options.socketPath !== 'string' || options.socketPath === '') return "the daemon target needs socketPath, the daemon's Unix socket";
  for (const name of ['connectTimeoutMs', 'maxLineBytes', 'highWaterBytes'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
      return `the daemon target's ${name} must be a whole number above 0, got ${String(value)}`;
  }
  return undefined;
}

/** Serves one browser as a relay to the daemon; closes both ends itself. */
export function relayDaemon(browser: BrowserConnection, options: DaemonRelayOptions, shared: DaemonRelayShared): void {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const highWater = options.highWaterBytes ?? DAEMON_HIGH_WATER_BYTES;
  browser.role = 'pi-daemon relay';
  const { owners } = shared;
  const { namespace } = owners;
  const isolation: IsolationContext = { page: browser.number, owners, admin: options.admin === true, redact: shared.redact };
  /**
   * The page's requests the daemon has not answered, by requestId (those the daemon echoes: see
   * echoedRequestId), with what the relay does with the answer. A requestId is refused while it is
   * in flight, as the daemon refuses it: so each answer is the answer to one known request.
   */
  const inFlight = new Map<string, Awaited | undefined>();
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

  /** The page is gone: the sessions it owned are free for the next page that opens them. */
  const ended = (): void => {
    stage = 'closed';
    inFlight.clear();
    owners.release(browser.number);
  };
  const finish = (code: number, reason: string): void => {
    if (stage === 'closed') return;
    ended();
    daemon?.close('the browser connection ended');
    // A paused browser socket would not read the close handshake's answer.
    if (browserPaused) browser.socket.resume();
    browser.close(code, reason);
  };
  const answer = (ids: CommandIds, code: DaemonRelayErrorCode, message: string, retryable = false, details?: Record<string, unknown>): void => {
    browser.send(gatewayError(ids, hostInstanceId ?? GATEWAY_INSTANCE_ID, code, shared.redact(message), retryable, details));
  };
  /**
   * A daemon line on its way to the page, the gateway's namespace taken out. A response (found by
   * its `kind` before it is parsed: the events of a running turn, most of the traffic, are never
   * parsed) ends its request's flight; an open's answer settles who owns the session, a handshake's
   * has its host snapshot cut down.
   */
  const readLine = (line: string): string => fromDaemon(readResponseLine(line), namespace);
  const readResponseLine = (line: string): string => {
    if (inFlight.size === 0 || !RESPONSE_KIND.test(line)) return line;
    const response = readResponse(line);
    if (response === undefined || !inFlight.has(response.requestId)) return line;
    const awaited = inFlight.get(response.requestId);
    inFlight.delete(response.requestId);
    // A session_busy answer shows the session is there and running a wake no connection owns any
    // more (its page left mid-turn): the page that asked gets it, so it can abort that wake and open
    // its next generation. It could have opened the free session anyway; no page loses by this.
    if (awaited?.kind === 'open') owners.opened(awaited.sessionId, browser.number, response.ok || response.code === 'session_busy');
    // Cut by the daemon's ids: a page's own id may spell another gateway's id of a session.
    if (awaited?.kind === 'handshake' && response.ok) return filterHostSnapshot(line, inNamespace(owners.owned(browser.number), namespace));
    return line;
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
      // Like the daemon with an empty line: no answer, nothing sent on.
      if (data === '') return;
      const read = readFrame(data, maxLineBytes);
      if (!read.ok) {
        // Like the daemon with such a line: its error record; then, but for a JSON value that is
        // not an object, the connection ends.
        answer({}, read.code, read.message, false, read.details);
        if (read.ends) finish(read.code === 'line_too_large' ? CLOSE.tooBig : CLOSE.badRequest, `aicc gateway: ${read.message}`);
        return;
      }
      const judgement = checkPolicy(read.record, { storedSessions: options.storedSessions === true }) ?? judgeCommand(read.record, isolation);
      if ('rule' in judgement) return answer(read.ids, 'denied_by_gateway', judgement.message, false, { rule: judgement.rule });
      if (judgement.verdict === 'refuse') return answer(read.ids, judgement.code, judgement.message, false, judgement.details);
      const line = toDaemon(read.line, read.record, namespace);
      if (line !== read.line && Buffer.byteLength(line) > maxLineBytes) {
        // Like the daemon with a line that long: its error, then the close.
        const bytes = Buffer.byteLength(line);
        const message = `a record of ${bytes} bytes with the gateway's session namespace in front of its sessionId is over the daemon's line limit of ${maxLineBytes} bytes; send a shorter one`;
        answer(read.ids, 'line_too_large', message, false, { maxLineBytes, actualBytes: bytes });
        return finish(CLOSE.tooBig, `aicc gateway: ${message}`);
      }
      const requestId = echoedRequestId(read.record);
      if (requestId !== undefined) {
        // The daemon's own answers, given here: it could not be told which request an answer is for.
        if (inFlight.has(requestId)) return answer(read.ids, 'duplicate_request_id', 'requestId is already in flight; give each request its own requestId');
        if (inFlight.size >= DAEMON_MAX_IN_FLIGHT)
          return answer(read.ids, 'connection_busy', `${DAEMON_MAX_IN_FLIGHT} requests already wait for their answers; wait for some`, true);
        if (judgement.verdict === 'open') owners.opening(judgement.sessionId, browser.number);
        inFlight.set(
          requestId,
          judgement.verdict === 'open'
            ? { kind: 'open', sessionId: judgement.sessionId }
            : judgement.verdict === 'handshake'
              ? { kind: 'handshake' }
              : undefined,
        );
      }
      if (stage === 'open') return forward(line);
      backlogBytes += Buffer.byteLength(line);
      if (backlog.length >= DAEMON_MAX_BACKLOG || backlogBytes > DAEMON_MAX_BACKLOG_BYTES) {
        return finish(
          CLOSE.tryAgainLater,
          `more than ${DAEMON_MAX_BACKLOG} records or ${DAEMON_MAX_BACKLOG_BYTES} bytes before the daemon's socket opened; send fewer at once`,
        );
      }
      backlog.push(line);
    },
    close(code, reason) {
      if (stage === 'closed') return;
      ended();
      daemon?.close(`the browser left (${code}: ${reason})`);
    },
    refused(code) {
      // ws closes the connection itself: the page gets the daemon's answer to such a line first.
      if (code === CLOSE.tooBig) {
        answer(
          {},
          'line_too_large',
          `a WebSocket message over the gateway's limit of ${shared.maxMessageBytes} bytes; send records of at most ${maxLineBytes} bytes (the daemon's line limit)`,
          false,
          { maxLineBytes },
        );
        return `aicc gateway: a message over ${shared.maxMessageBytes} bytes; records are at most ${maxLineBytes} bytes`;
      }
      answer({}, 'invalid_utf8', 'a text frame that is not UTF-8; send JSON text in UTF-8');
      return 'aicc gateway: a text frame that is not UTF-8';
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
          browser.send(readLine(frame), written);
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

/** A response line's requestId and ok, or undefined when the line is no readable response. */
function readResponse(line: string): { requestId: string; ok: boolean; code?: unknown } | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (record === null || typeof record !== 'object') return undefined;
  const { kind, requestId, ok, error } = record as Record<string, unknown>;
  return kind === 'response' && typeof requestId === 'string'
    ? { requestId, ok: ok === true, code: (error as { code?: unknown } | null | undefined)?.code }
    : undefined;
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
