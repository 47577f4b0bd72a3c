// Who may open a gateway connection: a browser page from an allowed Origin that presents the
// gateway key.
//
// The key travels as a WebSocket subprotocol, `aicc-key.<KEY>`, offered next to the protocol the
// gateway serves (`pi-peers.v1`, or `pi-daemon.v2` in daemon mode):
//   new WebSocket(url, ['pi-peers.v1', 'aicc-key.' + key])
// A browser can set nothing else on a WebSocket handshake but the URL, and a key in the URL ends up
// in history, proxies and server logs. The gateway only ever selects the protocol it serves, so the
// key is never echoed back.

import { createHash, timingSafeEqual } from 'node:crypto';

export const SUBPROTOCOL = 'pi-peers.v1';
/** The subprotocol of daemon mode: pi-daemon protocol v2 records, one per text frame. */
export const DAEMON_SUBPROTOCOL = 'pi-daemon.v2';
export const KEY_PREFIX = 'aicc-key.';
export const MIN_KEY_LENGTH = 16;
/** Characters a subprotocol token allows that are also safe to type: base64url plus "." and "~". */
const KEY_PATTERN = /^[A-Za-z0-9._~-]+$/;

/** WebSocket close codes the gateway uses, each documented in `aicc gateway --help`. */
export const CLOSE = {
  normal: 1000,
  tooBig: 1009,
  tryAgainLater: 1013,
  badRequest: 4400,
  badKey: 4401,
  badOrigin: 4403,
  notFound: 4404,
  timeout: 4408,
  agentGone: 4502,
} as const;

export interface Refusal {
  code: number;
  reason: string;
}

/** Says what is wrong with a key, or undefined if it will do. Never repeats the key. */
export function checkKeyFormat(key: string): string | undefined {
  if (key.length < MIN_KEY_LENGTH)
    return `the gateway key must be at least ${MIN_KEY_LENGTH} characters (got ${key.length}); generate one with \`openssl rand -hex 24\``;
  if (!KEY_PATTERN.test(key)) return 'the gateway key may hold only letters, digits and . _ ~ - (it travels as a WebSocket subprotocol)';
  return undefined;
}

/**
 * Normalizes an allow-list entry to an origin (`scheme://host[:port]`), or says why it is not one.
 * `null` is kept as is: it is what file:// pages and sandboxed frames send.
 */
export function normalizeOrigin(text: string): string | Error {
  if (text === 'null') return text;
  const notOrigin = (fix: string): Error => new Error(`"${text}" is not an origin; ${fix}`);
  // Each suggestion is an origin a page really sends, made from what was written where it can be.
  const bareHost = /^([\w-]+(?:\.[\w-]+)*(?::\d+)?)(?:\/|$)/.exec(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return notOrigin(`write it as scheme://host[:port], e.g. http://${bareHost?.[1] ?? 'localhost:5173'}`);
  }
  if (url.protocol === 'file:') return new Error(`"${text}" is not an origin: file:// pages send the origin "null"; write null to admit them`);
  if (url.host === '') {
    // "localhost:5173" parses as the scheme "localhost:": the scheme was left out.
    return notOrigin(`write it as scheme://host[:port], e.g. http://${bareHost?.[1] ?? 'localhost:5173'}`);
  }
  if (url.origin === 'null') return new Error(`"${text}" is not an origin a page sends; pages come from http:// or https://, e.g. http://${url.host}`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    return notOrigin(`write only scheme://host[:port], with no path, e.g. ${url.origin}`);
  }
  return url.origin;
}

export class AccessPolicy {
  private readonly origins: Set<string>;
  private readonly keyDigest: Buffer;
  private readonly key: string;

  /**
   * `origins` must already be normalized; `key` already checked with checkKeyFormat; `subprotocol`
   * is the one this gateway serves and a client must offer (default pi-peers.v1).
   */
  constructor(
    origins: Iterable<string>,
    key: string,
    readonly subprotocol: string = SUBPROTOCOL,
  ) {
    this.origins = new Set(origins);
    this.keyDigest = digest(key);
    this.key = key;
  }

  /**
   * An Origin header as a close reason or the log may name it: clipped, and not quoted at all when
   * it holds the key (pasted there by mistake), which neither may ever show.
   */
  describeOrigin(origin: string): string {
    return origin.includes(this.key) ? 'an origin that holds the gateway key' : `origin ${clip(origin, 60)}`;
  }

  /** A Host header as a message may name it: clipped, and not quoted when it holds the key. */
  describeHost(host: string): string {
    return host.includes(this.key) ? 'that holds the gateway key' : JSON.stringify(clip(host, 60));
  }

  /** Whether an Origin header names an allowed origin. */
  admitsOrigin(origin: string): boolean {
    const normalized = normalizeOrigin(origin);
    return typeof normalized === 'string' && this.origins.has(normalized);
  }

  /** Whether `offered` is the gateway key; compared as digests, so the time taken says nothing. */
  keyMatches(offered: string): boolean {
    return timingSafeEqual(digest(offered), this.keyDigest);
  }

  /** The same checks with another served subprotocol (the gateway serves pi's and, for lent characters, aicc's). */
  withSubprotocol(subprotocol: string): AccessPolicy {
    return new AccessPolicy(this.origins, this.key, subprotocol);
  }

  /**
   * Checks an upgrade request's Origin header and offered subprotocols. A request with no Origin
   * comes from a program, not a page: Origin protects only against pages, so such a client is let
   * through to the key check like any other.
   */
  check(origin: string | undefined, protocols: Iterable<string>): Refusal | undefined {
    if (origin !== undefined && !this.admitsOrigin(origin)) {
      return { code: CLOSE.badOrigin, reason: `${this.describeOrigin(origin)} is not in the gateway's --origin list` };
    }
    let offered: string | undefined;
    let sawSubprotocol = false;
    for (const protocol of protocols) {
      if (protocol.startsWith(KEY_PREFIX)) offered = protocol.slice(KEY_PREFIX.length);
      if (protocol === this.subprotocol) sawSubprotocol = true;
    }
    if (offered === undefined) return { code: CLOSE.badKey, reason: `no gateway key; offer the subprotocols "${this.subprotocol}" and "${KEY_PREFIX}<key>"` };
    // Compare digests: equal length whatever was sent, so the comparison time says nothing.
    if (!this.keyMatches(offered)) return { code: CLOSE.badKey, reason: 'wrong gateway key' };
    if (!sawSubprotocol) return { code: CLOSE.badRequest, reason: `offer the subprotocol "${this.subprotocol}" too` };
    return undefined;
  }
}

/**
 * Picks the subprotocol to answer with: the one served (pi-peers.v1 by default) when offered. A
 * client that offered subprotocols fails the handshake itself if none is selected, and would never
 * see the gateway's close code; so a connection about to be refused for a missing one gets another
 * of its offers, to carry the 4400. Never the key: a client that offered only `aicc-key.…` sees
 * the handshake fail (1006), and the gateway's log says why. Nor any offer that holds `key`
 * (the key bare, or after a mistyped prefix such as `AICC-KEY.`): the answer would echo it.
 */
export function selectSubprotocol(protocols: Set<string>, served: string = SUBPROTOCOL, key?: string): string | false {
  if (protocols.has(served)) return served;
  for (const protocol of protocols) if (!protocol.startsWith(KEY_PREFIX) && (key === undefined || !protocol.includes(key))) return protocol;
  return false;
}

/** Parses a Sec-WebSocket-Protocol header into its tokens. */
export function parseProtocols(header: string | undefined): string[] {
  return header === undefined
    ? []
    : header
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Keeps an untrusted header short and printable in a reason or a log line. */
export function clip(text: string, max = 80): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
