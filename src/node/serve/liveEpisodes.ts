// Live episodes: a character of a world played over plain aicc/0.1 on `aicc serve`'s /aicc
// WebSocket, for an agent that wants a live character rather than steps. POST /live sets one up
// (seed, params, the character) and answers its episode_id; the world's own policy plays the
// others, and the world runs in wall time at its tick rate. The first socket to
// /aicc?episode_id=…&agent=… opens the character's session; after a drop, a socket to
// /aicc?episode_id=… resumes it (session_resume: nothing lost, nothing twice — docs/PROTOCOL.md).
// The episode ends when the session closes (by the agent, or its resume grace ran out), when the
// world says stop or its ticks run out; then its capsule and world are disposed.

import type { Link } from '../../links/link.js';
import { closeEpisode, connectAgents, setUpEpisode } from '../../research/episode.js';
import { ServeError } from '../../research/servedEnv.js';
import type { EpisodeWorld, ParamValue, World } from '../../research/world.js';
import type { AgentClient } from '../../agent/agentClient.js';
import { randomUUID } from 'node:crypto';

interface Live {
  episode: EpisodeWorld;
  agent: string;
  clients: Map<string, AgentClient>;
  timer: ReturnType<typeof setInterval>;
  /** The character's session, once its first socket came. */
  session?: string;
  ended: boolean;
}

export interface LiveEpisodesOptions {
  /** Slots left for live episodes now (the server's bound, shared with stepped episodes). */
  room: () => number;
}

export class LiveEpisodes {
  private readonly live = new Map<string, Live>();

  constructor(
    readonly world: World,
    private readonly options: LiveEpisodesOptions,
  ) {}

  get size(): number {
    return this.live.size;
  }

  /** Sets an episode up and starts its clock; its character waits for its socket. */
  async start(request: { seed?: unknown; params?: unknown; agent?: unknown }): Promise<{ episode_id: string; agent: string; tick_rate_hz: number }> {
    if (this.options.room() <= 0)
      throw new ServeError('capacity_reached', 'the server runs as many episodes as it may (--max-episodes); close one, or try again when one ends');
    const seed = request.seed ?? 0;
    if (!(Number.isSafeInteger(seed) && (seed as number) >= 0))
      throw new ServeError('invalid_request', `seed must be a whole number from 0 to 2^53-1, got ${JSON.stringify(seed)}`);
    if (request.params !== undefined && (request.params === null || typeof request.params !== 'object' || Array.isArray(request.params)))
      throw new ServeError('invalid_request', 'params must be an object of the world’s parameters');
    let params;
    try {
      params = this.world.resolveParams(request.params as Record<string, ParamValue> | undefined);
    } catch (error) {
      throw new ServeError('invalid_request', (error as Error).message);
    }
    const { episode, random } = await setUpEpisode(this.world, seed as number, params);
    const characters = Object.keys(episode.agents);
    const agent = request.agent ?? characters[0];
    if (typeof agent !== 'string' || !characters.includes(agent)) {
      episode.capsule.dispose('episode refused');
      episode.dispose?.();
      throw new ServeError(
        'unknown_agent',
        `${JSON.stringify(String(agent).slice(0, 64))} is no character of world ${JSON.stringify(this.world.name)}; it has ${characters.join(', ')}`,
      );
    }
    const clients = await connectAgents(episode, random, agent);
    for (const [character, client] of clients) episode.policy?.({ character, client, random: random.fork(`policy:${character}`) });
    const id = randomUUID();
    const capsule = episode.capsule;
    const tickMs = 1000 / capsule.tickRateHz;
    // Wall time drives the world's stepped clock, a tick at a time.
    const timer = setInterval(() => {
      const live = this.live.get(id);
      if (live === undefined || live.ended) return;
      try {
        capsule.step(tickMs);
      } catch {
        void this.end(id, 'the world failed');
        return;
      }
      const stop = episode.stop?.() ?? (capsule.tick >= this.world.maxTicks ? 'tick_limit' : undefined);
      if (stop !== undefined) void this.end(id, `episode over: ${stop}`);
    }, tickMs);
    timer.unref?.();
    capsule.on('session', ({ session, change }) => {
      if (change === 'closed' && session.id === this.live.get(id)?.session) void this.end(id, 'session closed');
    });
    this.live.set(id, { episode, agent, clients, timer, ended: false });
    return { episode_id: id, agent, tick_rate_hz: capsule.tickRateHz };
  }

  /** A socket for episode `id`: with `agent`, its character's first; without, a resume. */
  attach(id: string, agent: string | undefined, link: Link): void {
    const live = this.live.get(id);
    if (live === undefined || live.ended)
      throw new ServeError('no_episode', `no live episode ${JSON.stringify(id.slice(0, 64))}: it ended, or never was; POST /live for a new one`);
    if (agent === undefined) {
      // session_resume is the first message on this link: the capsule takes it from there.
      live.episode.capsule.accept(link);
      return;
    }
    if (agent !== live.agent) throw new ServeError('unknown_agent', `episode ${id} is ${live.agent}'s; connect as ${live.agent}`);
    if (live.session !== undefined)
      throw new ServeError('busy', `${agent} has a session in episode ${id} already; resume it (/aicc?episode_id=… without agent)`);
    // A dropped session waits for its resume as long as the world's capsule says (resumeGraceMs, 30 s unless the world set it).
    const session = live.episode.capsule.connect(link, { ...live.episode.agents[agent], character: agent });
    live.session = session.id;
  }

  /** Ends episode `id`: its clock stops, its agents and capsule close. */
  async end(id: string, reason: string): Promise<void> {
    const live = this.live.get(id);
    if (live === undefined || live.ended) return;
    live.ended = true;
    clearInterval(live.timer);
    this.live.delete(id);
    await closeEpisode(live.episode, live.clients, reason);
  }

  async endAll(): Promise<void> {
    for (const id of [...this.live.keys()]) await this.end(id, 'server closed');
  }
}
