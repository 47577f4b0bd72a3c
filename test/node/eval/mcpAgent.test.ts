// An MCP client as the agent under test (`mcp:`): a real MCP SDK Client in a program of its own,
// served the village's Cleo over its stdio — its tools listed, its calls through the capsule's checks
// and counted as any agent's; a client that dies is recorded as crashed with its last words.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpAgent } from '../../../src/node/eval/mcpAgent.js';
import type { ProgramAgentOptions } from '../../../src/node/eval/programAgent.js';
import { runEval } from '../../../src/node/eval/runEval.js';
import { runEvalEpisode } from '../../../src/research/evalEpisode.js';
import { villageWorld } from '../../../src/worlds/village/villageWorld.js';
import { tempFolder } from '../sweep/helpers.js';

const walker = join(import.meta.dirname, 'programs', 'mcp-walker.mjs');
const command = (...args: string[]) => [JSON.stringify(process.execPath), JSON.stringify(walker), ...args].join(' ');

const evalOf = (agentCommand: string, maxTicks = 60, options: ProgramAgentOptions = {}) =>
  runEvalEpisode(villageWorld, {
    seed: 4,
    maxTicks,
    agent: mcpAgent(agentCommand, options),
    agentName: 'mcp-walker',
    agentSpec: `mcp:${agentCommand}`,
    roles: ['cleo'],
    hangMs: 30_000,
  });

describe('an MCP client as the agent under test', () => {
  it("plays its character through the character's MCP server: one call a tick, each through the capsule", async () => {
    const episode = await evalOf(command(), 60);
    expect(episode.failure).toBeUndefined();
    expect(episode.ticks).toBe(60);
    // Each call is answered at the next tick and the next call waits for it: about one a tick, a third of them walks.
    expect(episode.roleCalls.total).toBeGreaterThanOrEqual(40);
    expect(episode.roleCalls.total).toBeLessThanOrEqual(61);
    expect(episode.roleCalls.byTool['go']).toBeGreaterThanOrEqual(Math.floor(episode.roleCalls.total / 3) - 1);
    const cleo = episode.timeline.characters.indexOf('cleo');
    expect(episode.timeline.calls.filter(([, character]) => character === cleo)).toHaveLength(episode.roleCalls.total);
  }, 60_000);

  it('waits for a client to start, and no longer than it takes a client waiting on a call: the same episode every run', async () => {
    // Quiet would need 5 s of silence: these episodes settle on what the client asked and the capsule holds, never on time.
    const patient = { quietMs: 5_000 };
    const [first, second] = [await evalOf(command(), 120, patient), await evalOf(command(), 120, patient)];
    expect(first!.failure).toBeUndefined();
    expect(second!.stateHash).toBe(first!.stateHash);
    expect(second!.timeline.calls).toEqual(first!.timeline.calls);
    // Started before the first tick, then one call a tick: the eval never moved on while a call was on its way.
    const cleo = first!.timeline.characters.indexOf('cleo');
    expect(first!.timeline.calls.filter(([, character]) => character === cleo).map(([tick]) => tick)).toEqual(
      Array.from({ length: 120 }, (_, index) => index + 1),
    );
  }, 60_000);

  it('records a client that exits as crashed, with its exit code and last words, and finishes the episode', async () => {
    const episode = await evalOf(command('4'));
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/^cleo: exited \(code 3\) before the episode ended; its stderr ended: mcp-walker: giving up after 4 calls$/);
    expect(episode.ticks).toBe(60);
    expect(episode.roleCalls.total).toBe(4);
  }, 60_000);

  it('waits, as long as answeredMs says, for a client that thinks after each answer: its eval options reach the threads', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    // 150 ms of thought after each answer: past the default wait, well within 5 s.
    const result = await runEval({
      world: 'village',
      agents: [`thinker=mcp:${command('-', '150')}`],
      roles: ['cleo'],
      seeds: '1',
      maxTicks: 10,
      out,
      workers: 1,
      answeredMs: 5_000,
    });
    const [episode] = result.episodes;
    expect(episode!.failure).toBeUndefined();
    const cleo = episode!.timeline.characters.indexOf('cleo');
    expect(episode!.timeline.calls.filter(([, character]) => character === cleo).map(([tick]) => tick)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  }, 120_000);

  it('takes part in an eval on worker threads as mcp:COMMAND', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const result = await runEval({
      world: 'village',
      agents: ['world=policy:world', `mcp=mcp:${command()}`],
      roles: ['cleo'],
      seeds: '1..2',
      maxTicks: 40,
      out,
      workers: 2,
    });
    expect(result.missing).toEqual([]);
    const clients = result.episodes.filter((episode) => episode.agent === 'mcp');
    expect(clients).toHaveLength(2);
    for (const episode of clients) {
      expect(episode.failure).toBeUndefined();
      expect(episode.roleCalls.total).toBeGreaterThan(20);
    }
  }, 120_000);
});
