// A program of its own as the agent under test (`cmd:`): the built package's AgentClient in a child
// process, speaking aicc/0.1 as NDJSON on its stdio, seated in the village's Cleo — its calls through
// the capsule's checks, counted as any agent's; a program that dies is recorded as crashed with its
// exit code and last words, and the episode goes on.

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { programAgent } from '../../../src/node/eval/programAgent.js';
import { runEval } from '../../../src/node/eval/runEval.js';
import { runEvalEpisode } from '../../../src/research/evalEpisode.js';
import { villageWorld } from '../../../src/worlds/village/villageWorld.js';
import { requireBuiltWorker, tempFolder } from '../sweep/helpers.js';

beforeAll(requireBuiltWorker);

const walker = join(import.meta.dirname, 'programs', 'walker.mjs');
const command = (...args: string[]) => [JSON.stringify(process.execPath), JSON.stringify(walker), ...args].join(' ');

// A cmd: program says nothing when it has started: on a busy machine it may take a second or two
// to load, and the episode's first ticks go by meanwhile. A wait of 100 ms a quiet tick leaves it
// time to join well before the episode is over.
const evalOf = (agentCommand: string, maxTicks = 60) =>
  runEvalEpisode(villageWorld, {
    seed: 4,
    maxTicks,
    agent: programAgent(agentCommand, { quietMs: 100 }),
    agentName: 'walker',
    agentSpec: `cmd:${agentCommand}`,
    roles: ['cleo'],
    hangMs: 30_000,
  });

describe('a program as the agent under test', () => {
  it('plays its character over its own stdio: its calls reach the capsule and are counted', async () => {
    const episode = await evalOf(command(), 100);
    expect(episode.failure).toBeUndefined();
    expect(episode.ticks).toBe(100);
    // A call on every fifth tick it is not busy on, a walk every third: a few of each in 100 ticks.
    expect(episode.roleCalls.byTool['look']).toBeGreaterThanOrEqual(2);
    expect(episode.roleCalls.byTool['go']).toBeGreaterThanOrEqual(1);
    const cleo = episode.timeline.characters.indexOf('cleo');
    expect(episode.timeline.calls.filter(([, character]) => character === cleo)).toHaveLength(episode.roleCalls.total);
  }, 60_000);

  it('records a program that exits as crashed, with its exit code and last words, and finishes the episode', async () => {
    const episode = await evalOf(command('2'));
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/^cleo: exited \(code 3\) before the episode ended; its stderr ended: walker: giving up after 2 calls$/);
    expect(episode.ticks).toBe(60);
    expect(episode.roleCalls.total).toBe(2);
  }, 60_000);

  it('records a command that cannot run as crashed', async () => {
    const episode = await evalOf('aicc-no-such-program-anywhere', 20);
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/exited \(code 127\)/);
  }, 60_000);

  it('takes part in an eval on worker threads as cmd:COMMAND', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const result = await runEval({
      world: 'village',
      agents: ['world=policy:world', `walker=cmd:${command()}`],
      roles: ['cleo'],
      seeds: '1..2',
      maxTicks: 40,
      out,
      workers: 2,
    });
    expect(result.missing).toEqual([]);
    const walkers = result.episodes.filter((episode) => episode.agent === 'walker');
    expect(walkers).toHaveLength(2);
    for (const episode of walkers) {
      expect(episode.failure).toBeUndefined();
      expect(episode.roleCalls.total).toBeGreaterThan(0);
    }
  }, 120_000);
});
