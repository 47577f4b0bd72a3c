// @vitest-environment jsdom
// The inspector's bounds and lifecycle: batched redraws, the rows cap, toggling, options, dispose.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_ROWS, mountInspector, type Inspector } from '../../src/inspector/index.js';
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

async function busyCapsule() {
  const { capsule, clock } = makeCapsule();
  capsule.registerTool(echoTool);
  const { agent } = await connectAgent(capsule, clock);
  return { capsule, clock, agent };
}

function press(key: string, target: EventTarget = document.body): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

describe('inspector redraws', () => {
  it('draws once per frame however many messages arrive, and only when the frame comes', async () => {
    const { capsule, agent } = await busyCapsule();
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    await Promise.all(Array.from({ length: 30 }, (_, i) => agent.call('echo', { text: `m${i}` })));
    for (let i = 0; i < 10; i++) capsule.emit('collision', { a: 'a', b: `b${i}` });
    expect(frames.requested).toBe(1);
    expect(rows(inspector.element, '[data-aicc-call]')).toHaveLength(0);
    frames.flush();
    expect(rows(inspector.element, '[data-aicc-call]')).toHaveLength(30);
    expect(rows(inspector.element, '[data-aicc-event]')).toHaveLength(10);
    await agent.call('echo', { text: 'again' });
    expect(frames.requested).toBe(2);
  });

  it('keeps the last maxRows calls and events, newest first, and says how many there were', async () => {
    const { capsule, agent } = await busyCapsule();
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 5 });
    for (let i = 0; i < 8; i++) await agent.call('echo', { text: `m${i}` });
    frames.flush();
    for (let i = 8; i < 12; i++) await agent.call('echo', { text: `m${i}` });
    for (let i = 0; i < 7; i++) capsule.emit('audio', { source: 'bell', sound: `ding${i}` });
    frames.flush();
    const calls = rows(inspector.element, '[data-aicc-call]');
    expect(calls.map((r) => cell(r, 'input'))).toEqual(['text: m11', 'text: m10', 'text: m9', 'text: m8', 'text: m7']);
    expect(inspector.element.querySelector('[data-aicc-section="calls"] > summary')!.textContent).toBe('calls (last 5 of 12)');
    const events = rows(inspector.element, '[data-aicc-event]');
    expect(events.map((r) => cell(r, 'detail'))).toEqual([
      'source: bell, sound: ding6',
      'source: bell, sound: ding5',
      'source: bell, sound: ding4',
      'source: bell, sound: ding3',
      'source: bell, sound: ding2',
    ]);
  });

  it('caps the sessions it remembers, dropping closed ones first', async () => {
    const { capsule, clock } = makeCapsule();
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, maxRows: 2 });
    const { agent: first } = await connectAgent(capsule, clock, { character: 'a' });
    await connectAgent(capsule, clock, { character: 'b' });
    await first.close();
    await connectAgent(capsule, clock, { character: 'c' });
    frames.flush();
    expect(rows(inspector.element, '[data-aicc-session]').map((r) => cell(r, 'character'))).toEqual(['b', 'c']);
  });

  it('redraws a session row only when its text changed, and keeps each call row element', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent: busy } = await connectAgent(capsule, clock, { character: 'busy' });
    await connectAgent(capsule, clock, { character: 'idle' });
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    await busy.call('echo', { text: 'one' });
    frames.flush();
    const [busyRow, idleRow] = rows(inspector.element, '[data-aicc-session]');
    const idleCell = idleRow!.querySelector('[data-cell="calls"]');
    const busyCell = busyRow!.querySelector('[data-cell="calls"]');
    const firstCall = rows(inspector.element, '[data-aicc-call]')[0];
    await busy.call('echo', { text: 'two' });
    frames.flush();
    const [busyAfter, idleAfter] = rows(inspector.element, '[data-aicc-session]');
    expect(busyAfter).toBe(busyRow);
    expect(idleAfter).toBe(idleRow);
    expect(idleAfter!.querySelector('[data-cell="calls"]')).toBe(idleCell);
    expect(busyAfter!.querySelector('[data-cell="calls"]')).not.toBe(busyCell);
    expect(busyAfter!.querySelector('[data-cell="calls"]')!.textContent).toBe('2, refused 0');
    expect(rows(inspector.element, '[data-aicc-call]')[1]).toBe(firstCall);
  });

  it('defaults to 200 rows', () => {
    expect(DEFAULT_MAX_ROWS).toBe(200);
  });
});

describe('opening and closing', () => {
  it('toggles with its button and the backquote key, and ignores the key while typing in a field', async () => {
    const { capsule } = await busyCapsule();
    inspector = mountInspector(capsule, { schedule: new ManualFrames().schedule, open: false });
    const panel = inspector.element.querySelector<HTMLElement>('[data-aicc-panel]')!;
    const button = inspector.element.querySelector<HTMLButtonElement>('[data-aicc-toggle]')!;
    expect([inspector.isOpen, panel.hidden, inspector.element.getAttribute('data-open')]).toEqual([false, true, 'false']);
    button.click();
    expect([inspector.isOpen, panel.hidden, button.getAttribute('aria-expanded')]).toEqual([true, false, 'true']);
    expect(press('`').defaultPrevented).toBe(true);
    expect(inspector.isOpen).toBe(false);
    const field = document.createElement('input');
    document.body.append(field);
    press('`', field);
    expect(inspector.isOpen).toBe(false);
    press('a');
    expect(inspector.isOpen).toBe(false);
    inspector.toggle();
    expect(inspector.isOpen).toBe(true);
    inspector.close();
    expect(panel.hidden).toBe(true);
  });

  it('takes another key, or none', async () => {
    const { capsule } = await busyCapsule();
    inspector = mountInspector(capsule, { schedule: new ManualFrames().schedule, key: 'F2' });
    press('`');
    expect(inspector.isOpen).toBe(true);
    press('F2');
    expect(inspector.isOpen).toBe(false);
    inspector.dispose();
    inspector = mountInspector(capsule, { schedule: new ManualFrames().schedule, key: null });
    press('`');
    expect(inspector.isOpen).toBe(true);
  });

  it('does no drawing while closed, and draws what it recorded meanwhile on opening', async () => {
    const { capsule, agent } = await busyCapsule();
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule, open: false });
    await agent.call('echo', { text: 'while closed' });
    expect(frames.requested).toBe(0);
    inspector.open();
    expect(cell(rows(inspector.element, '[data-aicc-call]')[0]!, 'input')).toBe('text: while closed');
  });

  it('cancels a pending frame on close', async () => {
    const { capsule, agent } = await busyCapsule();
    const frames = new ManualFrames();
    inspector = mountInspector(capsule, { schedule: frames.schedule });
    await agent.call('echo', { text: 'x' });
    expect(frames.pending).toBe(1);
    inspector.close();
    expect(frames.pending).toBe(0);
  });
});

describe('options', () => {
  it('mounts in the given parent', async () => {
    const { capsule } = await busyCapsule();
    const parent = document.createElement('div');
    document.body.append(parent);
    inspector = mountInspector(capsule, { parent, schedule: new ManualFrames().schedule });
    expect(inspector.element.parentElement).toBe(parent);
    expect(inspector.element.hasAttribute('data-aicc-inspector')).toBe(true);
  });

  it.each([
    [{ maxRows: 0 }, 'mountInspector: expected maxRows to be an integer from 1 to 5000, got 0'],
    [{ maxRows: 2.5 }, 'mountInspector: expected maxRows to be an integer from 1 to 5000, got 2.5'],
    [{ key: '' }, 'mountInspector: expected key to be a KeyboardEvent.key string or null, got '],
    [{ now: 5 as unknown as () => number }, 'mountInspector: options.now must be a function returning milliseconds'],
  ])('refuses %o with AICC_INVALID_OPTION', async (options, message) => {
    const { capsule } = await busyCapsule();
    let thrown: unknown;
    try {
      mountInspector(capsule, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CapsuleError);
    expect((thrown as CapsuleError).code).toBe('AICC_INVALID_OPTION');
    expect((thrown as CapsuleError).message).toBe(message);
    expect(document.querySelector('[data-aicc-inspector], [data-aicc-inspector-style]')).toBeNull();
  });

  it('refuses something that is not a capsule', () => {
    expect(() => mountInspector({} as Capsule)).toThrow(
      'mountInspector: the first argument must be a Capsule (from createCapsule) or a holder of capsules with onCapsule (the Phaser plugin, this.aicc)',
    );
  });
});

describe('dispose', () => {
  it('removes the overlay and its style and calls every unsubscriber it got from capsule.on', async () => {
    const { capsule, agent } = await busyCapsule();
    const subscribed: string[] = [];
    let unsubscribed = 0;
    const on = capsule.on.bind(capsule);
    const spied: Capsule = Object.assign(Object.create(capsule) as Capsule, {
      on: ((type: Parameters<Capsule['on']>[0], handler: (event: unknown) => void) => {
        subscribed.push(type);
        const off = on(type, handler as Parameters<Capsule['on']>[1]);
        return () => {
          unsubscribed++;
          off();
        };
      }) as Capsule['on'],
    });
    const added = vi.spyOn(document, 'addEventListener');
    const removed = vi.spyOn(document, 'removeEventListener');
    const frames = new ManualFrames();
    inspector = mountInspector(spied, { schedule: frames.schedule });
    expect(document.querySelectorAll('style[data-aicc-inspector-style]')).toHaveLength(1);
    expect(added.mock.calls.map(([type]) => type)).toEqual(['keydown']);
    expect(subscribed).toEqual(expect.arrayContaining(['message', 'session', 'error', 'tick', 'collision', 'audio', 'state_change', 'agent_message']));
    await agent.call('echo', { text: 'x' });
    expect(frames.pending).toBe(1);

    inspector.dispose();
    // The very listener it added to the document is the one it took away.
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
    added.mockRestore();
    removed.mockRestore();
    expect(unsubscribed).toBe(subscribed.length);
    expect(frames.pending).toBe(0);
    expect(document.querySelector('[data-aicc-inspector]')).toBeNull();
    expect(document.querySelector('style[data-aicc-inspector-style]')).toBeNull();
    // Nothing is listening any more: the capsule's traffic schedules no frame.
    await agent.call('echo', { text: 'y' });
    expect(frames.requested).toBe(1);
    inspector.dispose();
  });
});
