// @vitest-environment jsdom
// The inspector lives as long as what it shows: a disposed capsule takes its inspector off the page;
// mounted on a holder of capsules (the Phaser plugin), it moves to each new capsule and keeps its
// place, filters and open state.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountInspector, type CapsuleHolder, type Inspector } from '../../src/inspector/index.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import { CapsuleError } from '../../src/base/errors.js';
import { connectAgent, echoTool, makeCapsule } from '../helpers.js';
import { cell, ManualFrames, rows } from './helpers.js';

let inspector: Inspector | undefined;
afterEach(() => {
  inspector?.dispose();
  inspector = undefined;
  document.body.replaceChildren();
});

/** A capsule whose `on` counts the listeners the inspector holds on it. */
function counted(capsule: Capsule): { capsule: Capsule; listening: () => number } {
  let listening = 0;
  const on = capsule.on.bind(capsule);
  const spied: Capsule = Object.assign(Object.create(capsule) as Capsule, {
    on: ((type: Parameters<Capsule['on']>[0], handler: (event: unknown) => void) => {
      listening++;
      const off = on(type, handler as Parameters<Capsule['on']>[1]);
      return () => {
        listening--;
        off();
      };
    }) as Capsule['on'],
  });
  return { capsule: spied, listening: () => listening };
}

/** A holder as the Phaser plugin is one: the capsule now, if any, then each new one. */
class Holder implements CapsuleHolder {
  readonly listeners = new Set<(capsule: Capsule) => void>();
  current: Capsule | undefined;
  onCapsule(listener: (capsule: Capsule) => void): () => void {
    this.listeners.add(listener);
    if (this.current !== undefined) listener(this.current);
    return () => void this.listeners.delete(listener);
  }
  hand(capsule: Capsule): void {
    this.current = capsule;
    for (const listener of this.listeners) listener(capsule);
  }
}

async function busy(character: string) {
  const { capsule, clock } = makeCapsule();
  capsule.registerTool(echoTool);
  const { agent } = await connectAgent(capsule, clock, { character });
  return { capsule, agent };
}

const characters = (root: Element): string[] => rows(root, '[data-aicc-session]').map((row) => cell(row, 'character'));

describe('mounted on a capsule', () => {
  it('leaves the page when the capsule is disposed: DOM, style, page and capsule listeners, pending frame', async () => {
    const { capsule: real, agent } = await busy('wren');
    const { capsule, listening } = counted(real);
    const added = vi.spyOn(document, 'addEventListener');
    const removed = vi.spyOn(document, 'removeEventListener');
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    expect(listening()).toBeGreaterThan(0);
    await agent.call('echo', { text: 'x' });
    expect(frames.pending).toBe(1);

    real.dispose('level over');
    expect(inspector.element.isConnected).toBe(false);
    expect(document.querySelector('[data-aicc-inspector], style[data-aicc-inspector-style]')).toBeNull();
    expect(listening()).toBe(0);
    expect(frames.pending).toBe(0);
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
    added.mockRestore();
    removed.mockRestore();
    expect(inspector.capsule).toBeUndefined();
    inspector.dispose();
  });

  it('refuses a capsule already disposed, and mounts nothing', () => {
    const { capsule } = makeCapsule();
    capsule.dispose();
    expect(() => mountInspector(capsule)).toThrow(
      expect.objectContaining({ code: 'AICC_DISPOSED', message: 'mountInspector: this capsule was disposed; mount the inspector on a live one' }),
    );
    expect(document.querySelector('[data-aicc-inspector], style[data-aicc-inspector-style]')).toBeNull();
  });
});

describe('mounted on a holder of capsules', () => {
  it('stays out of view until the holder has a capsule, then shows it', async () => {
    const holder = new Holder();
    inspector = mountInspector(holder, { schedule: new ManualFrames().schedule });
    expect([inspector.element.isConnected, inspector.element.hidden, inspector.capsule]).toEqual([true, true, undefined]);
    const { capsule } = await busy('wren');
    holder.hand(capsule);
    expect([inspector.element.hidden, inspector.capsule]).toEqual([false, capsule]);
    expect(characters(inspector.element)).toEqual(['wren']);
  });

  it('on dispose of its capsule drops its rows and listeners and hides; at the next capsule it shows that one, keeping place, filters and open state', async () => {
    const first = await busy('wren');
    const { capsule: firstCapsule, listening } = counted(first.capsule);
    const holder = new Holder();
    holder.current = firstCapsule;
    const frames = new ManualFrames();
    inspector = mountInspector(holder, { schedule: frames.schedule, dock: 'left' });
    await first.agent.call('echo', { text: 'from the first scene' });
    frames.flush();
    inspector.setFilter({ tool: 'echo' });
    inspector.close();
    expect(rows(inspector.element, '[data-aicc-call]')).toHaveLength(1);

    first.capsule.dispose('scene shut down');
    expect(listening()).toBe(0);
    expect([inspector.element.isConnected, inspector.element.hidden, inspector.capsule]).toEqual([true, true, undefined]);
    expect(rows(inspector.element, '[data-aicc-call], [data-aicc-session]')).toEqual([]);

    const second = await busy('moss');
    holder.hand(second.capsule);
    await second.agent.call('echo', { text: 'from the second scene' });
    inspector.open();
    expect(inspector.element.hidden).toBe(false);
    expect(characters(inspector.element)).toEqual(['moss']);
    expect(rows(inspector.element, '[data-aicc-call]').map((row) => cell(row, 'input'))).toEqual(['text: from the second scene']);
    expect([inspector.dock, inspector.filter, inspector.element.getAttribute('data-dock')]).toEqual(['left', { character: null, tool: 'echo' }, 'left']);
  });

  it('handed the capsule it shows again (a scene given one capsule for all its starts), keeps what it recorded', async () => {
    const { capsule, agent } = await busy('wren');
    const holder = new Holder();
    holder.current = capsule;
    inspector = mountInspector(holder, { schedule: new ManualFrames().schedule });
    await agent.call('echo', { text: 'before the restart' });
    holder.hand(capsule);
    inspector.close();
    inspector.open();
    expect(rows(inspector.element, '[data-aicc-call]').map((row) => cell(row, 'input'))).toEqual(['text: before the restart']);
  });

  it('dispose stops following the holder', async () => {
    const holder = new Holder();
    inspector = mountInspector(holder, { schedule: new ManualFrames().schedule });
    expect(holder.listeners.size).toBe(1);
    inspector.dispose();
    expect(holder.listeners.size).toBe(0);
    expect(document.querySelector('[data-aicc-inspector]')).toBeNull();
  });

  it('refuses what is neither a capsule nor a holder', () => {
    expect(() => mountInspector({ onCapsule: 1 } as unknown as CapsuleHolder)).toThrow(CapsuleError);
  });
});
