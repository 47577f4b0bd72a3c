// A chat agent (pi, or any ChatBackend a pilot drives) as the agent under test: briefed by the
// pilot, its calls read out of its replies and sent through the capsule's checks, the world's clock
// standing still while it thinks — so a slow agent plays the very episode a quick one does — and an
// agent that fails is recorded as such while the episode goes on.

import { describe, expect, it } from 'vitest';
import { chatAgent } from '../../src/research/evalAgents.js';
import { runEvalEpisode } from '../../src/research/evalEpisode.js';
import { villageWorld } from '../../src/worlds/village/villageWorld.js';
import { aicc, ScriptedBackend, type Sent } from '../agent/pilot/fakeBackend.js';

/** Walks south whenever it has news, looks around first: answers by what it was sent alone. */
const walk = (sent: Sent[]): string =>
  sent.some((entry) => entry.text.startsWith('You are')) ? aicc({ tool: 'look' }) : aicc({ tool: 'go', input: { direction: 'south' } });

/** A scripted chat agent whose replies take `delayMs` of wall time. */
class SlowBackend extends ScriptedBackend {
  constructor(private readonly delayMs: number) {
    super([], walk);
  }

  override async reply(signal?: AbortSignal): Promise<string | null> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.reply(signal);
  }
}

function seatedChats(make: () => ScriptedBackend) {
  const opened: ScriptedBackend[] = [];
  let closes = 0;
  const agent = chatAgent({
    open: async () => {
      const backend = make();
      opened.push(backend);
      return {
        backend,
        close: async () => {
          closes++;
          backend.close();
        },
      };
    },
  });
  return { agent, opened, closes: () => closes };
}

const evalOf = (agent: ReturnType<typeof chatAgent>, maxTicks = 60) =>
  runEvalEpisode(villageWorld, { seed: 5, maxTicks, agent, agentName: 'chat', agentSpec: 'pi:test/model', roles: ['cleo'], hangMs: 30_000 });

describe('a chat agent under test', () => {
  it('is briefed, plays its character through the capsule, and is closed with the episode', async () => {
    const chats = seatedChats(() => new SlowBackend(0));
    const episode = await evalOf(chats.agent);
    expect(episode.failure).toBeUndefined();
    expect(chats.opened).toHaveLength(1);
    const [backend] = chats.opened;
    expect(backend!.texts('prompt')[0]).toMatch(/^You are Cleo/);
    expect(episode.roleCalls.byTool['look']).toBe(1);
    expect(episode.roleCalls.byTool['go']).toBeGreaterThanOrEqual(1);
    // One decision for each reply read, each with the wall time it took.
    expect(episode.decisions).toBe(backend!.signals.length);
    expect(episode.decisionMs.every((ms) => ms >= 0)).toBe(true);
    expect(chats.closes()).toBe(1);
    expect(backend!.closed).toBe(true);
  });

  it('takes no world time to think: a slow agent plays the very episode a quick one does', async () => {
    const quick = await evalOf(seatedChats(() => new SlowBackend(0)).agent);
    const slow = await evalOf(seatedChats(() => new SlowBackend(15)).agent);
    expect(slow.stateHash).toBe(quick.stateHash);
    expect(slow.timeline.calls).toEqual(quick.timeline.calls);
    expect(slow.decisions).toBe(quick.decisions);
    expect(slow.roleCalls.total).toBeGreaterThan(1);
  }, 30_000);

  it('records an agent whose sends keep failing as crashed, with its reason, and finishes the episode', async () => {
    const chats = seatedChats(() => {
      const backend = new SlowBackend(0);
      backend.failSends = 'pi is not running';
      return backend;
    });
    const episode = await evalOf(chats.agent, 200);
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/^cleo: .*pi is not running/);
    expect(episode.ticks).toBe(200);
    expect(episode.roleCalls.total).toBe(0);
    expect(chats.closes()).toBe(1);
  });

  it('records an agent that cannot be opened as crashed', async () => {
    const agent = chatAgent({
      open: async () => {
        throw new Error('no socket at /tmp/nowhere.sock');
      },
    });
    const episode = await evalOf(agent, 20);
    expect(episode.failure).toMatchObject({ kind: 'crashed' });
    expect(episode.failure!.reason).toMatch(/could not start as cleo: no socket at \/tmp\/nowhere\.sock/);
    expect(episode.ticks).toBe(20);
  });
});
