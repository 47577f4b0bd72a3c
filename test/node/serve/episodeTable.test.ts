// The episodes table of `aicc serve`: one request per episode at a time, a bound, and idle expiry
// on an injected clock.

import { describe, expect, it } from 'vitest';
import { ServeError } from '../../../src/research/servedEnv.js';
import { EpisodeTable } from '../../../src/node/serve/episodeTable.js';
import { swarmWorld } from '../../../src/worlds/swarm/swarmWorld.js';

async function code(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServeError);
    return (error as ServeError).code;
  }
  return 'no error';
}

describe('EpisodeTable', () => {
  it('runs one request of an episode at a time: another meanwhile is told busy, and may come again after', async () => {
    const table = new EpisodeTable(swarmWorld);
    const id = await table.open();
    let release!: () => void;
    const first = table.use(id, () => new Promise<void>((resolve) => (release = resolve)));
    expect(await code(() => table.use(id, () => undefined))).toBe('busy');
    release();
    await first;
    expect(await table.use(id, () => 'again')).toBe('again');
    expect(await code(() => table.use('missing', () => undefined))).toBe('no_episode');
    expect(await code(() => table.use({ toString: () => id }, () => undefined))).toBe('invalid_request');
    await table.closeAll();
  });

  it('holds at most maxEpisodes, and an episode idle past idleMs makes room — but not one answering a request', async () => {
    let now = 0;
    const table = new EpisodeTable(swarmWorld, { maxEpisodes: 2, idleMs: 100, now: () => now });
    const a = await table.open();
    const b = await table.open();
    expect(await code(() => table.open())).toBe('capacity_reached');
    let release!: () => void;
    const working = table.use(a, () => new Promise<void>((resolve) => (release = resolve)));
    now = 500;
    const c = await table.open(); // b expired; a is busy and stays
    expect(await code(() => table.use(b, () => undefined))).toBe('no_episode');
    release();
    await working;
    expect(table.size).toBe(2);
    expect(await table.close(c)).toBe(true);
    expect(await table.close(c)).toBe(false);
    await table.closeAll();
    expect(table.size).toBe(0);
  });
});
