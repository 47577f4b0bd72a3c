// @vitest-environment jsdom
// What the inspector keeps of a crowd: each character's recent calls in a bounded ring of its own
// (a busy capsule's shared list of the newest calls would leave a character only a few), and lists
// that stop at their bound say so ("2 of 3").

import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CALLS_PER_CHARACTER, DEFAULT_MAX_ROWS, mountInspector, type Inspector } from '../../src/inspector/index.js';
import type { AgentClient } from '../../src/agent/agentClient.js';
import { connectAgent, echoTool, makeCapsule } from '../helpers.js';
import { cell, ManualFrames, rows } from './helpers.js';

let inspector: Inspector | undefined;
afterEach(() => {
  inspector?.dispose();
  inspector = undefined;
  document.body.replaceChildren();
});

/** A capsule with `count` characters (c0, c1, …), each with an agent that can call echo. */
async function crowd(count: number) {
  const { capsule, clock } = makeCapsule();
  capsule.registerTool(echoTool);
  const agents: AgentClient[] = [];
  for (let i = 0; i < count; i++) agents.push((await connectAgent(capsule, clock, { character: `c${i}` })).agent);
  return { capsule, agents };
}

const summary = (section: string): string | null | undefined => inspector?.element.querySelector(`[data-aicc-section="${section}"] > summary`)?.textContent;
const callRows = (): string[] => rows(inspector!.element, '[data-aicc-call]').map((row) => `${cell(row, 'character')} ${cell(row, 'input')}`);

describe('calls kept per character', () => {
  it('keeps each of 50 characters’ recent calls, where one shared list of 200 would leave each about 4', async () => {
    const { capsule, agents } = await crowd(50);
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    // Ten rounds: every character calls once a round, so the newest 200 calls hold each one's last 4.
    for (let round = 0; round < 10; round++) await Promise.all(agents.map((agent, i) => agent.call('echo', { text: `c${i} #${round}` })));
    frames.flush();
    expect(rows(inspector.element, '[data-aicc-call]')).toHaveLength(DEFAULT_MAX_ROWS);
    expect(summary('calls')).toBe('calls (last 200 of 500)');
    inspector.setFilter({ character: 'c7' });
    expect(callRows()).toEqual(Array.from({ length: 10 }, (_, i) => `c7 text: c7 #${9 - i}`));
    expect(summary('calls')).toBe('calls (last 10 of 10)');
    // A tool filter on top narrows the character's ring.
    inspector.setFilter({ tool: 'nothing' });
    expect(summary('calls')).toBe('calls (0 shown of the last 10 of 10)');
  });

  it(`keeps at most callsPerCharacter (default ${DEFAULT_CALLS_PER_CHARACTER}) of a character’s calls, and says how many it made`, async () => {
    const { capsule, agents } = await crowd(2);
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    for (let i = 0; i < 60; i++) await agents[0]!.call('echo', { text: `m${i}` });
    await agents[1]!.call('echo', { text: 'other' });
    inspector.setFilter({ character: 'c0' });
    expect(callRows()).toHaveLength(DEFAULT_CALLS_PER_CHARACTER);
    expect(callRows()[0]).toBe('c0 text: m59');
    expect(callRows().at(-1)).toBe('c0 text: m10');
    expect(summary('calls')).toBe('calls (last 50 of 60)');
    inspector.dispose();

    inspector = mountInspector(capsule, { schedule: frames.schedule, callsPerCharacter: 3 });
    for (let i = 0; i < 5; i++) await agents[1]!.call('echo', { text: `n${i}` });
    inspector.setFilter({ character: 'c1' });
    expect(callRows()).toEqual(['c1 text: n4', 'c1 text: n3', 'c1 text: n2']);
    expect(summary('calls')).toBe('calls (last 3 of 5)');
  });

  it('keeps the rings of at most maxRows characters, the least recently active dropped first', async () => {
    const { capsule, agents } = await crowd(3);
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 2 });
    await agents[0]!.call('echo', { text: 'a' });
    await agents[1]!.call('echo', { text: 'b' });
    await agents[0]!.call('echo', { text: 'a again' });
    await agents[2]!.call('echo', { text: 'c' });
    inspector.setFilter({ character: 'c1' });
    expect(callRows()).toEqual([]);
    inspector.setFilter({ character: 'c0' });
    expect(callRows()).toEqual(['c0 text: a again', 'c0 text: a']);
  });

  it('opens a call held only in its character’s ring', async () => {
    const { capsule, agents } = await crowd(2);
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 2 });
    await agents[0]!.call('echo', { text: 'old' });
    for (let i = 0; i < 3; i++) await agents[1]!.call('echo', { text: `new${i}` });
    inspector.setFilter({ character: 'c0' });
    const [row] = rows(inspector.element, '[data-aicc-call]');
    row!.querySelector<HTMLElement>('[data-cell="tool"]')!.click();
    expect(row!.querySelector('[data-field="input"]')!.textContent).toBe('text: old');
  });

  it('refuses a callsPerCharacter out of bounds', async () => {
    const { capsule } = await crowd(0);
    expect(() => mountInspector(capsule, { callsPerCharacter: 0 })).toThrow(
      'mountInspector: expected callsPerCharacter to be an integer from 1 to 5000, got 0',
    );
    expect(document.querySelector('[data-aicc-inspector]')).toBeNull();
  });
});

describe('lists that stop at their bound', () => {
  it('say how many there were: sessions "2 of 3", quota rows "3 of 4"', async () => {
    const { capsule, agents } = await crowd(3);
    capsule.registerTool({ ...echoTool, id: 'echo_again' });
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 2 });
    frames.flush();
    expect(rows(inspector.element, '[data-aicc-session]')).toHaveLength(2);
    expect(summary('sessions')).toBe('sessions (2 of 3)');
    inspector.dispose();

    // Two live sessions, two tools each: four quota rows.
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 3 });
    for (const agent of agents.slice(1)) {
      await agent.call('echo', { text: 'x' });
      await agent.call('echo_again', { text: 'y' });
    }
    frames.flush();
    expect(rows(inspector.element, '[data-aicc-quota]')).toHaveLength(3);
    expect(summary('quota')).toBe('quota (3 of 4)');
    expect(summary('sessions')).toBe('sessions (3)');
  });

  it('say only the count when nothing was dropped', async () => {
    const { capsule, agents } = await crowd(2);
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    for (const agent of agents) await agent.call('echo', { text: 'x' });
    frames.flush();
    expect(summary('quota')).toBe('quota (2)');
    expect(summary('sessions')).toBe('sessions (2)');
  });
});
