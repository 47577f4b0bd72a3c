// pi as the agent under test (`pi:PROVIDER/MODEL`): the REAL pi (0.73, and 1.x when its CLI is
// installed), started for Cleo behind a gateway on 127.0.0.1 and driven by the pilot, its model the
// local stub answering by the request alone. The world's clock stands still while pi thinks, so the
// same answers give the same episode; pi's calls go through the capsule and are counted.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piEvalAgent } from '../../src/node/eval/piEvalAgent.js';
import { runEvalEpisode } from '../../src/research/evalEpisode.js';
import { villageWorld } from '../../src/worlds/village/villageWorld.js';
import { tempDir } from '../node/gateway/helpers.js';
import { aicc } from '../agent/pilot/fakeBackend.js';
import { PI_TARGETS } from './piTargets.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, type StubModel, userTexts, writePiAgentDir } from './stubModel.js';

const DIRECTIONS = ['north', 'south', 'east', 'west'];

describe.each(PI_TARGETS)('$name as the agent under test', (target) => {
  let stub: StubModel;
  let dir: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    // A walk in a direction picked by how many times it was told the news: the same request, the same answer.
    stub = await startStubModel({
      respond: (body) => {
        const told = (body.messages ?? []).filter((message) => message.role === 'user').length;
        return { text: aicc({ tool: 'go', input: { direction: DIRECTIONS[told % 4]! } }), usage: { promptTokens: 200 + told, completionTokens: 12 } };
      },
    });
    dir = tempDir('aicc-e2e-pi-eval-');
    writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
  });

  afterAll(async () => {
    await stub?.close();
    dir?.remove();
  });

  const evalOf = () =>
    runEvalEpisode(villageWorld, {
      seed: 3,
      maxTicks: 24,
      agent: piEvalAgent(
        { kind: 'pi', provider: STUB_PROVIDER, model: STUB_MODEL_ID },
        { bin: target.cli, ...(target.node !== undefined && { node: target.node }), agentDir: join(dir.path, 'agent') },
      ),
      agentName: 'pi',
      agentSpec: `pi:${STUB_PROVIDER}/${STUB_MODEL_ID}`,
      roles: ['cleo'],
      hangMs: 60_000,
    });

  it('plays Cleo: briefed, its calls through the capsule, each decision timed — and the same answers give the same episode', async () => {
    const before = stub.requests.length;
    const first = await evalOf();
    expect(first.failure).toBeUndefined();
    expect(first.ticks).toBe(24);
    const asked = stub.requests.slice(before);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(userTexts(asked[0]!)[0]).toMatch(/^\[pi-peers message from "aicc eval"[^\n]*\n[\s\S]*You are Cleo/);
    expect(first.roleCalls.byTool['go']).toBeGreaterThanOrEqual(2);
    expect(first.decisions).toBeGreaterThanOrEqual(2);
    expect(first.decisionMs).toHaveLength(first.decisions);
    expect(first.decisionMs.every((ms) => ms > 0)).toBe(true);

    // pi thinks on wall time; the world waits for it: a second run plays the very same episode.
    const second = await evalOf();
    expect(second.failure).toBeUndefined();
    expect(second.stateHash).toBe(first.stateHash);
    expect(second.timeline.calls).toEqual(first.timeline.calls);
  }, 120_000);
});
