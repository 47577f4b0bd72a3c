// waitForReply against an agent that serves the gateway's reply-wait extension (a held get_state
// that carries the reply) and against one that ignores it (plain polling).

import { describe, expect, it } from 'vitest';
import type { AgentState, StateWait } from '../../src/pi/peersProtocol.js';
import { waitForReply, type ReplySource } from '../../src/pi/peersWait.js';
import { ManualClock } from '../../src/base/clock.js';
import { pass, settle } from '../helpers.js';

/** An agent whose answers the test scripts, recording what it was asked. */
function agent(answers: Array<Partial<AgentState>>): ReplySource & { asked: Array<StateWait | undefined>; textReads: number } {
  const base = { id: 'a', label: 'Ada', host: 'here', cwd: '/' };
  const source = {
    asked: [] as Array<StateWait | undefined>,
    textReads: 0,
    getState(wait?: StateWait): Promise<AgentState> {
      source.asked.push(wait);
      const next = answers.length > 1 ? answers.shift()! : answers[0]!;
      return Promise.resolve({ ...base, ...next });
    },
    getLastAssistantText(): Promise<string | null> {
      source.textReads++;
      return Promise.resolve('read separately');
    },
    on: () => () => {},
  };
  return source;
}

describe('waitForReply', () => {
  it('asks every get_state to be held until settled passes the baseline', async () => {
    const source = agent([{ idle: true, settled: 3, held: true, lastAssistantText: 'Go north.' }]);
    expect(await waitForReply(source, new ManualClock(), 2, { holdMs: 5000 })).toBe('Go north.');
    expect(source.asked).toEqual([{ settledAbove: 2, holdMs: 5000 }]);
    expect(source.textReads).toBe(0);
  });

  it('shows the get_state that ended the wait to onSettled, before it resolves (extensions ride on it)', async () => {
    const source = agent([{ idle: true, settled: 3, held: true, lastAssistantText: 'Go north.', aiccUsage: { inputTokens: 9, outputTokens: 4, costUsd: 0 } }]);
    const told: AgentState[] = [];
    const reply = waitForReply(source, new ManualClock(), 2, { onSettled: (state) => void told.push(state) });
    expect(await reply).toBe('Go north.');
    expect(told).toEqual([expect.objectContaining({ settled: 3, aiccUsage: { inputTokens: 9, outputTokens: 4, costUsd: 0 } })]);
  });

  it('takes a null reply from a held answer as "no text", without a second request', async () => {
    const source = agent([{ idle: true, settled: 1, held: true, lastAssistantText: null }]);
    expect(await waitForReply(source, new ManualClock(), 0)).toBeNull();
    expect(source.textReads).toBe(0);
  });

  it('asks again after a hold that ran out, and reads the text itself from an agent that ignores the extension', async () => {
    const clock = new ManualClock();
    const held = agent([
      { idle: false, settled: 0, held: true },
      { idle: true, settled: 1, held: true, lastAssistantText: 'Done.' },
    ]);
    const first = waitForReply(held, clock, 0, { pollMs: 20 });
    await settle();
    expect(held.asked).toHaveLength(1);
    await pass(clock, 20, 20);
    expect(await first).toBe('Done.');
    expect(held.asked).toHaveLength(2);

    const plain = agent([
      { idle: false, settled: 0 },
      { idle: true, settled: 1 },
    ]);
    const second = waitForReply(plain, clock, 0, { pollMs: 20 });
    await settle();
    await pass(clock, 20, 20);
    expect(await second).toBe('read separately');
    expect(plain.textReads).toBe(1);
  });
});
