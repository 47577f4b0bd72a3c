// Ratings of the agents of an eval, on each params combination: Glicko-2 (the glicko2 package, Mark
// Glickman's system, Elo's successor with a rating deviation) over the seeds, each seed a race among
// the agents that ran it, ranked by their score there (equal scores draw). Where the roles compete —
// the swarm's forager under test eats what the world's foragers do not — a seed is a game the agents
// played against the same field; where they cooperate it still ranks them seed by seed. Seeds are
// taken in ascending order, one rating period each, so the same episodes give the same ratings.

import { createRequire } from 'node:module';
import type { EvalEpisode } from '../../research/evalResult.js';

/** Glicko-2's settings here: its author's defaults (rating 1500, deviation 350, volatility 0.06) and τ 0.5. */
export const RATING_SETTINGS = Object.freeze({ tau: 0.5, rating: 1500, rd: 350, vol: 0.06 });

/** An agent's rating on one params combination: value ± 2·rd holds its true strength with about 95% confidence. */
export interface Rating {
  value: number;
  rd: number;
  /** Seeds it ran with at least one other agent: the races it was rated in. */
  seeds: number;
}

/** The part of glicko2 used here (its documented API; the package ships no types). */
interface Glicko2Player {
  getRating(): number;
  getRd(): number;
}
interface Glicko2Ranking {
  makePlayer(): Glicko2Player;
  makeRace(results: Glicko2Player[][]): unknown;
  updateRatings(race: unknown): void;
}
type Glicko2 = new (settings: typeof RATING_SETTINGS) => Glicko2Ranking;

let Ranking: Glicko2 | undefined;

function ranking(): Glicko2Ranking {
  // Loaded on first use: nothing runs on import. glicko2 is CommonJS; require is its documented seam.
  Ranking ??= (createRequire(import.meta.url)('glicko2') as { Glicko2: Glicko2 }).Glicko2;
  return new Ranking({ ...RATING_SETTINGS });
}

/** The ratings of the agents of `episodes` (one params combination), by agent; agents that never shared a seed are left out. */
export function rateAgents(agents: readonly string[], episodes: readonly EvalEpisode[]): Map<string, Rating> {
  const bySeed = new Map<number, EvalEpisode[]>();
  for (const episode of episodes) {
    let race = bySeed.get(episode.seed);
    if (race === undefined) bySeed.set(episode.seed, (race = []));
    race.push(episode);
  }
  const races = [...bySeed.entries()].filter(([, race]) => new Set(race.map((episode) => episode.agent)).size >= 2).sort(([a], [b]) => a - b);
  const out = new Map<string, Rating>();
  if (races.length === 0) return out;
  const glicko = ranking();
  const players = new Map(agents.map((agent) => [agent, glicko.makePlayer()]));
  const seeds = new Map<string, number>();
  for (const [, race] of races) {
    // Best first; agents on the same score share a place. The order of the agents breaks no tie.
    const places = new Map<number, Glicko2Player[]>();
    for (const episode of race) {
      const player = players.get(episode.agent);
      if (player === undefined) continue;
      let place = places.get(episode.score);
      if (place === undefined) places.set(episode.score, (place = []));
      place.push(player);
      seeds.set(episode.agent, (seeds.get(episode.agent) ?? 0) + 1);
    }
    glicko.updateRatings(glicko.makeRace([...places.entries()].sort(([a], [b]) => b - a).map(([, place]) => place)));
  }
  for (const [agent, player] of players) {
    const rated = seeds.get(agent);
    if (rated !== undefined) out.set(agent, { value: player.getRating(), rd: player.getRd(), seeds: rated });
  }
  return out;
}
