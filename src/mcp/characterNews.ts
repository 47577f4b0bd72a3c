// A character's news for MCP clients: the events its session hears, coalesced the way the pilot
// tells them (ticks counted, repeated state changes summed up), until someone reads them. Free of
// the MCP SDK, so the gateway can keep one per lent character without loading it.

import type { AgentClient } from '../agent/agentClient.js';
import { Digest } from '../agent/pilot/digest.js';

/**
 * The news a character's session hears, coalesced (the pilot's Digest), until someone reads it. A
 * server keeps its own by default; the gateway keeps one per lent character and hands it to every
 * MCP session of that character, so news waits for the next client instead of being lost with the
 * last one.
 */
export class CharacterNews {
  private readonly digest: Digest;
  private readonly listeners = new Set<() => void>();
  private readonly off: () => void;

  constructor(client: AgentClient, character: string, maxNewsLines = 30) {
    this.digest = new Digest({ self: character, maxNewsLines });
    this.off = client.on('event', (event) => {
      this.digest.addEvent(event);
      for (const listener of this.listeners) listener();
    });
  }

  get hasNews(): boolean {
    return this.digest.hasNews;
  }

  /** The news since the last take, as text ('' when none), and empties it. */
  take(): string {
    return this.digest.take();
  }

  /** Called after each event that reached the news. */
  onNews(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Stops gathering. */
  close(): void {
    this.off();
    this.listeners.clear();
  }
}
