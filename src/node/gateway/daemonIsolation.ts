// Which pi-daemon commands a page may send through the gateway: pages share one daemon, and each
// reaches only the sessions its own connection opened (sessionOwners.ts says who owns what).
//
// The daemon itself lets any connection on its socket list, attach to, wake, steer, abort and
// close any session, and drain the whole host. Through the gateway:
// - `open` goes on unless another page owns the session id (any generation: a higher one would
//   replace that page's session, the same one hand over its snapshot); its ok answer makes the
//   session this page's.
// - attach, detach, wake, steer, followUp, abort, close and `status` of one session go on only for
//   a session this page owns — once its open has been answered.
// - `drain` (which stops the daemon for every page until it restarts) and `status` without a
//   sessionId (every session on the host) only with the gateway's admin option; so do operations
//   the gateway does not know, since it cannot tell what they reach.
// - `handshake` goes on, and its answer's host snapshot lists only this page's sessions.
// Events need no filter: the daemon sends a session's events only to the connections attached to
// it, and each page has a daemon connection of its own that can attach only to its own sessions.
//
// Those rules hold among the pages of one gateway. Between gateways on one daemon (or one gateway
// and itself before a restart) it is the namespace that holds: the sessionId of every command above
// that names a session goes to the daemon with the gateway's namespace in front of it (toDaemon),
// and the namespace is taken out of every line the daemon sends back (fromDaemon). A page's open
// of `cleo` is the daemon's open of `gw-…:cleo`, a session no page of another gateway can name; on
// its own gateway the owner rules apply. So that the namespace fits, a page's session ids are
// shorter than the daemon's 256 characters by its length (an open of a longer one is refused as the
// daemon refuses one over 256).
//
// A command whose sessionId (or operation) is not even a string goes on untouched: the daemon
// refuses it with its precise `invalid_field` before it touches any session. The relay reads the
// answers to opens and handshakes, and so needs their requestIds to be ones the daemon echoes.

import type { Denial } from './daemonRecords.js';
import { MAX_SESSIONS_PER_PAGE, type SessionOwners } from './sessionOwners.js';

/** Operations on one session, which name it in `sessionId`. */
const SESSION_OPERATIONS: ReadonlySet<string> = new Set(['wake', 'steer', 'followUp', 'abort', 'attach', 'detach', 'close']);

/** The longest requestId pi-daemon 0.3.3 takes (the schema allows 512). */
export const MAX_REQUEST_ID = 128;
/** The longest sessionId pi-daemon 0.3.3 takes (the schema allows 512): a page's are shorter by the namespace. */
export const MAX_DAEMON_SESSION_ID = 256;

export interface IsolationContext {
  /** This page connection's number (BrowserConnection.number). */
  page: number;
  owners: SessionOwners;
  /** The gateway's admin option: drain, host-wide status and unknown operations go on. */
  admin: boolean;
  /** Takes the gateway key out of what a page sent, before a message quotes (and clips) it. */
  redact(text: string): string;
}

export type Judgement =
  | { verdict: 'forward' }
  /** Forward; its answer settles who owns `sessionId`. */
  | { verdict: 'open'; sessionId: string }
  /** Forward; its answer has its host snapshot cut down to this page's sessions. */
  | { verdict: 'handshake' }
  | ({ verdict: 'deny' } & Denial)
  /** Answer with the daemon's own refusal (see refuseRequestId). */
  | { verdict: 'refuse'; code: 'invalid_field'; message: string; details: Record<string, unknown> };

/** What the relay does with a command a page sent (already past checkPolicy). */
export function judgeCommand(record: Record<string, unknown>, context: IsolationContext): Judgement {
  const { operation, sessionId } = record;
  if (typeof operation !== 'string') return { verdict: 'forward' };
  if (operation === 'handshake') {
    if (context.admin) return { verdict: 'forward' };
    // Without a string requestId the daemon refuses the command, so its answer holds no snapshot.
    return refuseRequestId(record) ?? (echoedRequestId(record) === undefined ? { verdict: 'forward' } : { verdict: 'handshake' });
  }
  if (operation === 'open') return judgeOpen(record, context);
  if (SESSION_OPERATIONS.has(operation) || (operation === 'status' && sessionId !== undefined)) {
    return typeof sessionId === 'string' ? judgeUse(operation, sessionId, context) : { verdict: 'forward' };
  }
  if (context.admin) return { verdict: 'forward' };
  if (operation === 'drain') {
    return deny(
      'admin_only',
      'drain stops the daemon for every page until it restarts: only a gateway started with --daemon-admin passes it on; restart the daemon from its host instead',
    );
  }
  if (operation === 'status') {
    return deny(
      'admin_only',
      "status without a sessionId shows every session on the host: name one of this page's sessions in sessionId, or start the gateway with --daemon-admin",
    );
  }
  return deny(
    'unknown_operation',
    `operation ${quote(operation, context)} is not one the gateway can check (handshake, open, wake, steer, followUp, status, abort, attach, detach, close); start the gateway with --daemon-admin to pass every operation on`,
  );
}

function judgeOpen(record: Record<string, unknown>, context: IsolationContext): Judgement {
  const sessionId = record.sessionId;
  if (typeof sessionId !== 'string') return { verdict: 'forward' };
  const standing = context.owners.standing(sessionId, context.page);
  if (standing === 'taken')
    return deny(
      'other_page',
      `session ${quote(sessionId, context)} belongs to another page on this gateway; choose another sessionId (a session belongs to the page connection that opened it, until that connection ends)`,
    );
  if (standing === 'free' && context.owners.count(context.page) >= MAX_SESSIONS_PER_PAGE) {
    return deny(
      'session_limit',
      `this page connection already holds ${MAX_SESSIONS_PER_PAGE} sessions, the most one may; open one of its sessionIds again instead of a new one`,
    );
  }
  // With no string requestId the daemon refuses the command before it opens anything: it goes on
  // unclaimed, so it could make nothing this page's.
  return (
    refuseRequestId(record) ??
    refuseSessionId(sessionId, context) ??
    (echoedRequestId(record) === undefined ? { verdict: 'forward' } : { verdict: 'open', sessionId })
  );
}

/**
 * An open of a sessionId that is empty, or too long to take the namespace in front of it, is refused
 * here as the daemon refuses one outside 1 to 256 characters, with the limit a page has: the daemon
 * would take an empty one with the namespace in front, and refuse a long one quoting the lengths it
 * saw. Other commands need no such check: they reach only sessions the page opened.
 */
function refuseSessionId(sessionId: string, context: IsolationContext): Judgement | undefined {
  const max = MAX_DAEMON_SESSION_ID - context.owners.namespace.length;
  if (sessionId.length >= 1 && sessionId.length <= max) return undefined;
  return {
    verdict: 'refuse',
    code: 'invalid_field',
    message: `sessionId length must be between 1 and ${max}`,
    details: { field: 'sessionId', length: sessionId.length, min: 1, max },
  };
}

/**
 * The line the daemon gets for a page's command (`record`, read from `line`): the same, byte for
 * byte, but that a command naming a session (open, status, and the operations on one session) has
 * the gateway's namespace put in front of its sessionId — of every top-level `sessionId` member with
 * a string value, so that a duplicate member (JSON.parse, the daemon's as the gateway's, keeps the
 * last) cannot slip one past. Call it for a command judgeCommand let through.
 */
export function toDaemon(line: string, record: Record<string, unknown>, namespace: string): string {
  const { operation } = record;
  if (typeof record.sessionId !== 'string' || typeof operation !== 'string') return line;
  if (operation !== 'open' && operation !== 'status' && !SESSION_OPERATIONS.has(operation)) return line;
  return prefixSessionIds(line, namespace);
}

/**
 * A daemon line as the page gets it: with the gateway's namespace taken out wherever it stands — in
 * a record's sessionId, a snapshot's, a wake result's, an error's message or details. The namespace
 * holds no character JSON escapes and starts with one that can neither end an escape nor follow a
 * backslash (sessionOwners.ts): so it stands in a line only inside a string, whole, and the line
 * without it is valid JSON. A line without it (another gateway's session in an admin's host-wide
 * status, a line that names no session) goes on byte for byte.
 */
export function fromDaemon(line: string, namespace: string): string {
  return line.includes(namespace) ? line.replaceAll(namespace, '') : line;
}

/** The daemon's ids of a page's sessions. */
export function inNamespace(sessionIds: Iterable<string>, namespace: string): Set<string> {
  const ids = new Set<string>();
  for (const sessionId of sessionIds) ids.add(namespace + sessionId);
  return ids;
}

/** `line`, the JSON text of an object, with `prefix` at the start of each string value of a top-level `sessionId` member. */
function prefixSessionIds(line: string, prefix: string): string {
  let out = '';
  let copied = 0;
  let depth = 0;
  /** The next string is a member name of the top-level object. */
  let name = false;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (char === '"') {
      const end = stringEnd(line, at);
      // A member name may be written with escapes ("session\u0049d"): compared as JSON reads it.
      if (depth === 1 && name && JSON.parse(line.slice(at, end + 1)) === 'sessionId') {
        let value = end + 1;
        while (value < line.length && ': \t\n\r'.includes(line[value]!)) value++;
        if (line[value] === '"') {
          out += line.slice(copied, value + 1) + prefix;
          copied = value + 1;
        }
      }
      name = false;
      at = end;
    } else if (char === '{' || char === '[') {
      depth++;
      name = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') depth--;
    else if (char === ',' && depth === 1) name = true;
  }
  return out + line.slice(copied);
}

/** Where the JSON string that opens at `start` ends: its closing quote, the first one not escaped. */
function stringEnd(line: string, start: number): number {
  for (let from = start + 1; ; ) {
    const quote = line.indexOf('"', from);
    if (quote === -1) return line.length - 1;
    let slashes = 0;
    while (line[quote - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function judgeUse(operation: string, sessionId: string, context: IsolationContext): Judgement {
  switch (context.owners.standing(sessionId, context.page)) {
    case 'owned':
      return { verdict: 'forward' };
    case 'opening':
      return deny(
        'opening',
        `${operation} of session ${quote(sessionId, context)} before the daemon answered this page's open of it; wait for the open's answer`,
      );
    case 'taken':
      return deny(
        'other_page',
        `session ${quote(sessionId, context)} belongs to another page on this gateway; a page reaches only the sessions its own connection opened`,
      );
    case 'free':
      return deny(
        'not_opened',
        `this page connection has not opened session ${quote(sessionId, context)}; open it first (a page reaches only the sessions its own connection opened; after a reconnect, open them again)`,
      );
  }
}

/**
 * A handshake answer's line with its host snapshot (`data.host`) listing only `owned` sessions:
 * `sessions` and `recovery.quarantinedSessions`. The line itself when there is nothing to cut,
 * so that it goes on byte for byte; re-serialized otherwise. Counts (retainedSessions, metrics)
 * stay: they name no session.
 */
export function filterHostSnapshot(line: string, owned: ReadonlySet<string>): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  const host = objectAt(record, 'data', 'host');
  if (host === undefined) return line;
  let cut = cutList(host, 'sessions', owned);
  const recovery = objectAt(host, 'recovery');
  if (recovery !== undefined) cut = cutList(recovery, 'quarantinedSessions', owned) || cut;
  return cut ? JSON.stringify(record) : line;
}

/** Keeps the entries of `object[field]` that name an owned session; says whether any went. */
function cutList(object: Record<string, unknown>, field: string, owned: ReadonlySet<string>): boolean {
  const list = object[field];
  if (!Array.isArray(list)) return false;
  const kept = list.filter((entry) => {
    const id = typeof entry === 'string' ? entry : isObject(entry) ? entry.sessionId : undefined;
    return typeof id === 'string' && owned.has(id);
  });
  if (kept.length === list.length) return false;
  object[field] = kept;
  return true;
}

function objectAt(value: unknown, ...path: string[]): Record<string, unknown> | undefined {
  let at = value;
  for (const field of path) at = isObject(at) ? at[field] : undefined;
  return isObject(at) ? at : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The requestId the daemon's answer will carry, or undefined when it will carry one of the
 * daemon's own making (`invalid-…`: pi-daemon 0.3.3 refuses a command whose requestId is not a
 * string of 1 to 128 characters, and answers under such an id).
 */
export function echoedRequestId(record: Record<string, unknown>): string | undefined {
  const id = record.requestId;
  return typeof id === 'string' && id.length >= 1 && id.length <= MAX_REQUEST_ID ? id : undefined;
}

/**
 * An open or handshake whose requestId is a string the daemon will not take (over 128
 * characters) is refused here, as the daemon refuses it: its answer could not be told apart, and
 * one the relay could not read would go on — a handshake's with every session on the host in it —
 * should a later daemon take such ids. Other commands go on for the daemon to refuse.
 */
function refuseRequestId(record: Record<string, unknown>): Judgement | undefined {
  const id = record.requestId;
  if (typeof id !== 'string' || id.length <= MAX_REQUEST_ID) return undefined;
  return {
    verdict: 'refuse',
    code: 'invalid_field',
    message: `requestId length must be between 1 and ${MAX_REQUEST_ID}`,
    details: { field: 'requestId', length: id.length, min: 1, max: MAX_REQUEST_ID },
  };
}

/** A page-chosen id in a message: the key taken out first, then clipped (so no part of it shows), and quoted. */
function quote(id: string, context: IsolationContext): string {
  const text = context.redact(id);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

function deny(rule: Denial['rule'], message: string): Judgement {
  return { verdict: 'deny', rule, message };
}
