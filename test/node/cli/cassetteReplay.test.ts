// A village with three model-driven villagers, recorded with scripted models (a ModelTurn each, no
// server), then replayed from its cassette: every villager's model turns answered from its own
// exchanges, zero model calls, the replay's recording equal to the original line for line (state
// hashes included). A recording whose header names a villager twice, or none, is no model run.

import { describe, expect, it } from 'vitest';
import type { ModelReply, ModelTurn } from '../../../src/agent/model/modelPort.js';
import { hasCassette, replayFromCassette } from '../../../src/node/cli/cassetteReplay.js';
import { modelAgentOf } from '../../../src/node/cli/modelAgent.js';
import { parseRecording } from '../../../src/recording/recording.js';
import { runVillage } from '../../../src/worlds/village/run.js';

const usage = { input: 50, output: 5, cacheRead: 0, cacheWrite: 0 };

/** Looks, says a line, then waits: a decision of two requests, then one of one, over and over. */
function scripted(character: string, calls: { n: number }): ModelTurn {
  let n = 0;
  return async () => {
    // A model answers a moment later, not within the request's own microtasks.
    await new Promise((resolve) => setImmediate(resolve));
    calls.n++;
    n++;
    const step = n % 3;
    const content: ModelReply['content'] =
      step === 1
        ? [{ type: 'toolCall', id: `${character}${n}`, name: 'look', arguments: {} }]
        : step === 2
          ? [{ type: 'toolCall', id: `${character}${n}`, name: 'say', arguments: { text: `${character} says ${n}.` } }]
          : [{ type: 'text', text: 'I wait.' }];
    return { role: 'assistant', content, usage, stopReason: step === 0 ? 'stop' : 'toolUse', timestamp: 0 };
  };
}

const VILLAGERS = ['ada', 'bram', 'cleo'] as const;
const pace = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a cassette of several model-driven villagers', () => {
  it('replays all three with zero model calls: every line, every state hash, the story equal', async () => {
    const calls = { n: 0 };
    const agents = VILLAGERS.map((character) => modelAgentOf(() => scripted(character, calls), 'model:test/scripted', character));
    const lines: string[] = [];
    const day = await runVillage({
      ticks: 150,
      record: (line) => lines.push(line),
      pilots: VILLAGERS.map((character, i) => ({ character, backend: agents[i]!.backend })),
      recordOptions: { pilots: VILLAGERS.map((character) => ({ character, agent: 'model:test/scripted' })) },
      hashEvery: 50,
      pace,
    });
    for (const agent of agents) await agent.close();
    // Every villager was driven: each made decisions and said its lines.
    expect(Object.keys(day.pilots ?? {}).sort()).toEqual([...VILLAGERS]);
    for (const villager of VILLAGERS) expect(day.pilots![villager]!.decisions).toBeGreaterThanOrEqual(1);
    expect(day.story.filter((line) => / is driven by a chat agent/.test(line))).toHaveLength(3);
    expect(day.summaryLines.filter((line) => /^(ada|bram|cleo): decisions/.test(line))).toHaveLength(3);

    const text = lines.join('');
    const recording = parseRecording(text);
    expect(hasCassette(recording)).toBe(true);
    expect(new Set(recording.exchanges.map((e) => e.character))).toEqual(new Set(VILLAGERS));
    const recordedCalls = calls.n;
    const replayed = await replayFromCassette(
      recording,
      text.split('\n').filter((line) => line !== ''),
    );
    expect(calls.n).toBe(recordedCalls); // zero model calls
    expect(replayed.divergence, JSON.stringify(replayed.divergence)).toBeUndefined();
    expect(replayed.served).toBe(recording.exchanges.length);
    expect(replayed.unused).toBe(0);
    expect(replayed.divergence).toBeUndefined();
    expect(replayed.firstDifference, JSON.stringify(replayed.firstDifference)).toBeUndefined();
    expect(replayed.story).toEqual(day.story);

    // A fork at tick 50 hands the first (ada) to her scripted role: up to 50 the day is the recorded
    // one; after it, the others' recorded answers stop fitting as the day goes another way — the
    // fork says so, and is no failed replay for that.
    const fork = await replayFromCassette(
      recording,
      text.split('\n').filter((line) => line !== ''),
      {
        until: 50,
        handTo: 'scripted',
        agent: 'scripted',
        parent: 'day.ndjson',
        live: false,
      },
    );
    expect(calls.n).toBe(recordedCalls);
    expect(fork.firstDifference, JSON.stringify(fork.firstDifference)).toBeUndefined();
    expect(fork.divergence, JSON.stringify(fork.divergence)).toBeUndefined();
    expect(fork.hashAtFork?.forked).toBe(fork.hashAtFork?.recorded);
    expect(fork.hashAtFork?.recorded).toMatch(/^[0-9a-f]{32}$/);
    expect(fork.story).toContain('[0050] Ada is handed over to the scripted role.');
    expect(fork.story.some((line) => /^\[00(5[1-9]|[6-9]\d)\] Ada walks /.test(line))).toBe(true);
    expect(fork.cassetteEnded).toEqual({ character: expect.stringMatching(/^(bram|cleo)$/), tick: expect.any(Number) });
    expect(fork.cassetteEnded!.tick).toBeGreaterThan(50);
  });

  it('refuses pilots that name a villager twice, or one the village does not have, or pilot beside pilots', async () => {
    const backend = modelAgentOf(() => scripted('x', { n: 0 }), 'x', 'ada').backend;
    await expect(
      runVillage({
        ticks: 5,
        pilots: [
          { character: 'ada', backend },
          { character: 'ada', backend },
        ],
      }),
    ).rejects.toThrow(/piloted twice/);
    await expect(runVillage({ ticks: 5, pilots: [{ character: 'dora', backend }] })).rejects.toThrow(/no villager "dora" to pilot; choose ada, bram, cleo/);
    await expect(runVillage({ ticks: 5, pilot: { character: 'ada', backend }, pilots: [{ character: 'bram', backend }] })).rejects.toThrow(
      /pilot or pilots, not both/,
    );
  });
});
