// Which page connection owns which pi-daemon session, for one gateway in daemon mode.
//
// Pages on a gateway share one daemon, and session ids are chosen by the pages (often a
// character's name): two tabs of the same game would otherwise drive, read and close each other's
// sessions. So a session belongs to the page connection whose `open` of it the daemon answered ok,
// for as long as that connection lasts; while it does, no other page may reach that session id.
//
// When the connection ends its sessions are released, not closed: they stay on the daemon (which
// evicts idle ones itself), and the next page to open the id owns it. A page that reconnects gets
// its sessions back the same way — by opening them again (the same generation and policy is a no-op
// on the daemon) before it attaches. The key cannot tell pages apart (every page of a gateway has
// the same one), and a page can carry nothing across a reload that another page could not copy;
// the connection is the one identity a page cannot borrow.
//
// This ledger knows one gateway's pages only; another gateway on the same daemon keeps its own. So
// the sessions of each gateway live on the daemon under a namespace of the gateway's own, drawn at
// random when it starts: the daemon knows a page's session `cleo` as `gw-<16 hex digits>:cleo`, and
// a page of another gateway — or of this one after a restart — cannot even name it: whatever id it
// sends goes under its own gateway's namespace (daemonIsolation.ts puts it in and takes it out).

import { randomBytes } from 'node:crypto';

/** How one session id stands for one page. */
export type Standing = 'owned' | 'opening' | 'free' | 'taken';

interface Claim {
  page: number;
  /** The daemon has answered one of the page's opens of it with ok. */
  owned: boolean;
  /** The page's opens of it still waiting for their answers. */
  opening: number;
}

/** Most sessions one page connection may own or be opening at once. */
export const MAX_SESSIONS_PER_PAGE = 1024;

/**
 * What a gateway's namespace looks like: `gw-`, letters and digits, `:`. It starts with a letter that
 * is no hex digit and cannot follow a backslash in JSON, and holds nothing JSON escapes: so in a
 * daemon's line it stands only where a string holds it, and taking it out leaves valid JSON
 * (daemonIsolation.ts, fromDaemon).
 */
const NAMESPACE = /^gw-[0-9a-z]{1,32}:$/;

export class SessionOwners {
  private readonly claims = new Map<string, Claim>();
  private readonly byPage = new Map<number, Set<string>>();

  /**
   * @param namespace what the daemon's ids of this gateway's sessions start with. Default: one drawn
   * at random (`gw-` and 16 hex digits, then `:`), so that no other gateway on the daemon, nor this
   * one once restarted, shares it.
   */
  constructor(readonly namespace: string = `gw-${randomBytes(8).toString('hex')}:`) {
    if (!NAMESPACE.test(namespace))
      throw new Error(
        `SessionOwners: namespace ${JSON.stringify(namespace)} must be "gw-", 1 to 32 lowercase letters or digits, and ":"; leave it out for a random one`,
      );
  }

  /** How `sessionId` stands for `page`: its own, its open under way, nobody's, or another page's. */
  standing(sessionId: string, page: number): Standing {
    const claim = this.claims.get(sessionId);
    if (claim === undefined) return 'free';
    if (claim.page !== page) return 'taken';
    return claim.owned ? 'owned' : 'opening';
  }

  /** Sessions `page` holds or is opening. */
  count(page: number): number {
    return this.byPage.get(page)?.size ?? 0;
  }

  /**
   * An open of `sessionId` by `page` goes to the daemon: from now until its answer no other page
   * may open it. Throws if another page holds it (the caller checks `standing` first).
   */
  opening(sessionId: string, page: number): void {
    const claim = this.claims.get(sessionId);
    if (claim !== undefined && claim.page !== page)
      throw new Error(`SessionOwners.opening: session ${JSON.stringify(sessionId)} belongs to page #${claim.page}, not #${page}; check standing() first`);
    if (claim !== undefined) {
      claim.opening++;
      return;
    }
    this.claims.set(sessionId, { page, owned: false, opening: 1 });
    let sessions = this.byPage.get(page);
    if (sessions === undefined) this.byPage.set(page, (sessions = new Set()));
    sessions.add(sessionId);
  }

  /** The daemon answered one of `page`'s opens of `sessionId`: ok (or a sign it is there, see daemonRelay) makes it the page's; a failure of a first open frees it. */
  opened(sessionId: string, page: number, ok: boolean): void {
    const claim = this.claims.get(sessionId);
    if (claim === undefined || claim.page !== page) return;
    claim.opening = Math.max(0, claim.opening - 1);
    if (ok) claim.owned = true;
    else if (!claim.owned && claim.opening === 0) this.drop(sessionId, page);
  }

  /** The page's connection ended: every session it owned or was opening is free again. */
  release(page: number): void {
    for (const sessionId of this.byPage.get(page) ?? []) this.claims.delete(sessionId);
    this.byPage.delete(page);
  }

  /** The session ids `page` owns (not those still opening). */
  owned(page: number): Set<string> {
    const owned = new Set<string>();
    for (const sessionId of this.byPage.get(page) ?? []) if (this.claims.get(sessionId)?.owned === true) owned.add(sessionId);
    return owned;
  }

  private drop(sessionId: string, page: number): void {
    this.claims.delete(sessionId);
    const sessions = this.byPage.get(page);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.byPage.delete(page);
  }
}
