// Started by serveMemory.test.ts with --expose-gc: `aicc serve` (the swarm, at most 8 episodes) under
// rounds of hostile traffic — 200 resets at once, malformed and oversized bodies, unknown episodes,
// actions for characters of other episodes, sockets dropped mid-message — each round closing what it
// opened. Prints one JSON line: the heap after a forced GC after each round, and the crashes seen.

import { startServe } from '../../../../src/node/serve/serveServer.js';
import { swarmWorld } from '../../../../src/worlds/swarm/swarmWorld.js';

const rounds = Number(process.argv[2] ?? 8);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
let crashes = 0;
const server = await startServe({ world: swarmWorld, port: 0, maxEpisodes: 8, maxBodyBytes: 4096, onError: () => crashes++ });
const post = async (path: string, body: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, body: await response.json() };
};
const heaps: number[] = [];
const statuses = new Map<number, number>();
const count = (status: number): void => void statuses.set(status, (statuses.get(status) ?? 0) + 1);
for (let round = 0; round < rounds; round++) {
  const resets = await Promise.all(
    Array.from({ length: 200 }, (_, seed) =>
      post('/reset', JSON.stringify({ seed, face: 'vectors', agents: ['forager-000'], params: { foragers: 2, size: 8 } })),
    ),
  );
  const ids = resets.filter((answer) => answer.status === 200).map((answer) => answer.body.episode_id as string);
  for (const answer of resets) count(answer.status);
  for (const id of ids) {
    for (const body of [
      '{"episode_id":',
      '[]',
      JSON.stringify({ episode_id: id, actions: { 'forager-001': 0 } }),
      JSON.stringify({ episode_id: id, actions: { 'forager-000': 'x'.repeat(5000) } }),
      JSON.stringify({ episode_id: `${id}x`, actions: {} }),
      JSON.stringify({ episode_id: id, actions: { 'forager-000': 2 } }),
    ])
      count((await post('/step', body)).status);
  }
  for (const id of ids) await post('/close', JSON.stringify({ episode_id: id }));
  gc();
  gc();
  heaps.push(process.memoryUsage().heapUsed);
}
console.log(JSON.stringify({ heaps, crashes, open: server.episodes.size, statuses: Object.fromEntries(statuses) }));
await server.close();
