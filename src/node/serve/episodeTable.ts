// The episodes `aicc serve` runs at once: each under an id of its own, bounded in number, and
// forgotten after sitting idle (a client that vanished mid-episode leaves nothing behind for long).
// One request at a time per episode: a second that arrives while one runs is refused, not queued —
// a client that pipelines steps would otherwise have them run in whatever order they landed.

import { randomUUID } from 'node:crypto';
import { ServedEnv, ServeError } from '../../research/servedEnv.js';
import type { World } from '../../research/world.js';

/** Most episodes at once, unless told otherwise. */
export const DEFAULT_MAX_EPISODES = 64;
/** How long an episode may sit without a request before it is closed, unless told otherwise: 10 minutes. */
export const DEFAULT_IDLE_MS = 10 * 60_000;

export interface EpisodeTableOptions {
  maxEpisodes?: number;
  idleMs?: number;
  /** Milliseconds now, for the idle expiry. Default `performance.now`. */
  now?: () => number;
  /** Episodes held elsewhere that count against maxEpisodes (the live ones). */
  others?: () => number;
}

interface Entry {
  env: ServedEnv;
  usedAt: number;
  busy: boolean;
}

export class EpisodeTable {
  private readonly episodes = new Map<string, Entry>();
  private readonly maxEpisodes: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private readonly others: () => number;

  constructor(
    readonly world: World,
    options: EpisodeTableOptions = {},
  ) {
    this.maxEpisodes = options.maxEpisodes ?? DEFAULT_MAX_EPISODES;
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.now = options.now ?? (() => globalThis.performance.now());
    this.others = options.others ?? (() => 0);
  }

  /** How many more episodes the bound allows now. */
  room(): number {
    return this.maxEpisodes - this.episodes.size - this.others();
  }

  get size(): number {
    return this.episodes.size;
  }

  /** A new episode's id, its ServedEnv not yet reset; refused (capacity_reached) when the table is full of live episodes. */
  async open(): Promise<string> {
    await this.expire();
    if (this.room() <= 0)
      throw new ServeError('capacity_reached', `${this.maxEpisodes} episodes are running (the server's --max-episodes); close one, or try again when one ends`);
    const id = randomUUID();
    this.episodes.set(id, { env: new ServedEnv(this.world), usedAt: this.now(), busy: false });
    return id;
  }

  /** Runs `work` on episode `id`, alone: no other request of that episode runs meanwhile. */
  async use<T>(id: unknown, work: (env: ServedEnv) => Promise<T> | T): Promise<T> {
    if (typeof id !== 'string' || id.length > 64) throw new ServeError('invalid_request', 'episode_id must be the id /reset returned');
    const entry = this.episodes.get(id);
    if (entry === undefined)
      throw new ServeError('no_episode', `no episode ${JSON.stringify(id)} here: it was closed, expired after sitting idle, or never was; reset for a new one`);
    if (entry.busy) throw new ServeError('busy', `episode ${id} is answering another request; send the next once this one is answered`);
    entry.busy = true;
    try {
      return await work(entry.env);
    } finally {
      entry.busy = false;
      entry.usedAt = this.now();
    }
  }

  /** Closes an episode and forgets it; false if there was none. */
  async close(id: string): Promise<boolean> {
    const entry = this.episodes.get(id);
    if (entry === undefined) return false;
    this.episodes.delete(id);
    await entry.env.close();
    return true;
  }

  /** Closes the episodes idle for longer than idleMs. */
  async expire(): Promise<void> {
    const now = this.now();
    for (const [id, entry] of [...this.episodes]) if (!entry.busy && now - entry.usedAt > this.idleMs) await this.close(id);
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.episodes.keys()]) await this.close(id);
  }
}
