// Characters that game pages lend to the gateway: a page connects its capsule's session for one
// character to `/characters/<id>` (subprotocols `aicc.v0.1` and `aicc-key.<KEY>`), the capsule
// being the bridge end as always; the gateway takes the agent's end with an AgentClient, which MCP
// clients then drive through `/mcp/<id>` (mcpEndpoint.ts). One page per character at a time.

import { AgentClient } from '../../agent/agentClient.js';
import { webSocketLink, type WebSocketLike } from '../../links/websocket.js';
import { CharacterNews } from '../../mcp/characterNews.js';
import { CLOSE, type Refusal } from './access.js';
import type { BrowserConnection } from './browser.js';

/** Where pages lend characters, and where MCP clients drive them (mcpEndpoint.ts). */
export const CHARACTERS_PATH = '/characters/';
export const MCP_PATH = '/mcp/';

/** The subprotocol of a page's aicc/0.1 session: one JSON message a text frame. */
export const CHARACTER_SUBPROTOCOL = 'aicc.v0.1';
/** Most characters lent at once; a page beyond them is closed with 1013. */
export const MAX_CHARACTERS = 32;
/** A character id as a URL path segment may carry it. */
const CHARACTER_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** `/characters/<id>` → the id, or the refusal for any other path under /characters. */
export function characterOfPath(pathname: string, prefix: string): string | Refusal {
  let id: string;
  try {
    id = decodeURIComponent(pathname.slice(prefix.length).replace(/\/$/, ''));
  } catch {
    id = '';
  }
  return CHARACTER_ID.test(id) ? id : { code: CLOSE.notFound, reason: `name the character: ${prefix}<id>, the id of 1 to 64 letters, digits, _ . or -` };
}

export class CharacterSessions {
  /** By character: its session's agent end, or null while the page's session is opening. */
  private readonly clients = new Map<string, AgentClient | null>();
  /** By character: its news since the last read, shared by every MCP session that drives it. */
  private readonly newsOf = new Map<string, CharacterNews>();
  private readonly listeners = new Set<(character: string, client: AgentClient | undefined) => void>();

  get size(): number {
    return this.clients.size;
  }

  /** The character's session, once its page has opened it. */
  get(character: string): AgentClient | undefined {
    return this.clients.get(character) ?? undefined;
  }

  /** The character's news (kept between MCP sessions: a client that reconnects reads what it missed). */
  news(character: string): CharacterNews | undefined {
    return this.newsOf.get(character);
  }

  /** Called when a character arrives (with its client) or leaves (undefined). */
  onChange(listener: (character: string, client: AgentClient | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Whether a page may lend `character` now, or the refusal to close its socket with. */
  admits(character: string): Refusal | undefined {
    if (this.clients.has(character)) return { code: CLOSE.badRequest, reason: `another page already lends ${character}; close it first` };
    if (this.clients.size >= MAX_CHARACTERS) return { code: CLOSE.tryAgainLater, reason: `the gateway holds ${MAX_CHARACTERS} characters; try again later` };
    return undefined;
  }

  /** Takes the agent's end of the page's session; resolves once the capsule's session_init came (or the page left). */
  async adopt(character: string, page: BrowserConnection): Promise<void> {
    const refusal = this.admits(character);
    if (refusal !== undefined) {
      page.close(refusal.code, refusal.reason);
      return;
    }
    const ws = page.socket;
    // Held from the start, so a second page for the same character is refused while this one opens.
    this.clients.set(character, null);
    let client: AgentClient;
    try {
      client = await AgentClient.connect(webSocketLink(ws as unknown as WebSocketLike));
    } catch {
      this.clients.delete(character);
      if (page.open) page.close(CLOSE.timeout, 'no session_init from the page: connect a capsule session (capsule.connect(link, { character }))');
      return;
    }
    this.clients.set(character, client);
    this.newsOf.set(character, new CharacterNews(client, character));
    for (const listener of this.listeners) listener(character, client);
    // A page's link that drops is the page gone: a lend is never resumed (a page that comes back
    // lends again, with a new session), so the session ends now and the character is free at once —
    // left 'disconnected', it would stay lent and refuse the page's next lend.
    client.on('disconnect', ({ reason }) => void client.close(`the page left: ${reason}`));
    client.on('close', () => {
      if (this.clients.get(character) !== client) return;
      this.clients.delete(character);
      this.newsOf.get(character)?.close();
      this.newsOf.delete(character);
      for (const listener of this.listeners) listener(character, undefined);
    });
  }

  /** Closes every lent character's session (the gateway is closing). */
  async closeAll(reason: string): Promise<void> {
    await Promise.all([...this.clients.values()].flatMap((client) => (client === null ? [] : [client.close(reason)])));
  }
}
