// @vitest-environment jsdom
// The overlay's controls: filters by character and by tool, where it docks, what is folded at mount,
// and a look that needs no style attribute.

import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DOCK, DOCKS, mountInspector, type Inspector } from '../../src/inspector/index.js';
import { connectAgent, echoTool, makeCapsule, moveTool } from '../helpers.js';
import { cell, ManualFrames, rows } from './helpers.js';

let inspector: Inspector | undefined;
afterEach(() => {
  inspector?.dispose();
  inspector = undefined;
  document.body.replaceChildren();
});

/** wren and moss each call echo and move_to; a tool of wren's throws; moss rings a bell, wren cheers up, a door opens. */
async function village() {
  const { capsule, clock } = makeCapsule();
  capsule.registerTool(echoTool);
  capsule.registerTool(moveTool());
  capsule.registerTool({
    ...echoTool,
    id: 'fail',
    handler: () => {
      throw new Error('boom');
    },
  });
  const grants = { capabilities: { actuators: ['locomotion'] } };
  const { agent: wren } = await connectAgent(capsule, clock, { character: 'wren', ...grants });
  const { agent: moss } = await connectAgent(capsule, clock, { character: 'moss', ...grants });
  const frames = new ManualFrames();
  inspector = mountInspector(capsule, { schedule: frames.schedule });
  await wren.call('echo', { text: 'w1' });
  await wren.call('move_to', { x: 1, y: 1 });
  await moss.call('echo', { text: 'm1' });
  await moss.call('move_to', { x: 2, y: 2 });
  await wren.call('fail', { text: 'x' });
  capsule.emit('audio', { source: 'moss', sound: 'bell' });
  capsule.emit('state_change', { entity: 'wren', field: 'mood', value: 'glad' });
  capsule.emit('state_change', { entity: 'door', field: 'open', value: true });
  frames.flush();
  return { root: inspector.element, frames };
}

const calls = (root: Element) => rows(root, '[data-aicc-call]').map((row) => `${cell(row, 'character')} ${cell(row, 'tool')}`);
const summary = (root: Element, section: string) => root.querySelector(`[data-aicc-section="${section}"] > summary`)!.textContent;
const choices = (root: Element, name: string) => Array.from(root.querySelectorAll(`[data-aicc-filter="${name}"] option`)).map((option) => option.textContent);

function choose(select: HTMLSelectElement, value: string): void {
  select.value = value;
  select.dispatchEvent(new Event('change'));
}

describe('filters', () => {
  it('by character, chosen in its list: that character’s calls, session, quota and the events that name it or no character', async () => {
    const { root } = await village();
    expect(choices(root, 'character')).toEqual(['all characters', 'moss', 'wren']);
    choose(root.querySelector<HTMLSelectElement>('[data-aicc-filter="character"]')!, 'wren');
    expect(inspector!.filter).toEqual({ character: 'wren', tool: null });
    expect(calls(root)).toEqual(['wren fail', 'wren move_to', 'wren echo']);
    expect(rows(root, '[data-aicc-session]').map((row) => cell(row, 'character'))).toEqual(['wren']);
    expect(rows(root, '[data-aicc-quota]').map((row) => cell(row, 'character'))).toEqual(['wren', 'wren', 'wren']);
    const events = () => rows(root, '[data-aicc-event]').map((row) => `${cell(row, 'event')} ${cell(row, 'detail').split(',')[0]}`);
    expect(events()).toEqual(['state_change entity: door', 'state_change entity: wren', 'handler_threw fail · wren: tool "fail" threw: boom']);
    // The count is the character's own: wren's calls kept, of all wren made.
    expect(summary(root, 'calls')).toBe('calls (last 3 of 3)');
    choose(root.querySelector<HTMLSelectElement>('[data-aicc-filter="character"]')!, '');
    expect(calls(root)).toHaveLength(5);
    expect(summary(root, 'calls')).toBe('calls (last 5 of 5)');
  });

  it('by tool, set from code: that tool’s calls, quota and manifest row, and the events not about another tool', async () => {
    const { root } = await village();
    expect(choices(root, 'tool')).toEqual(['all tools', 'echo', 'fail', 'move_to']);
    inspector!.setFilter({ tool: 'echo' });
    expect(root.querySelector<HTMLSelectElement>('[data-aicc-filter="tool"]')!.value).toBe('echo');
    expect(calls(root)).toEqual(['moss echo', 'wren echo']);
    expect(rows(root, '[data-aicc-quota]').map((row) => cell(row, 'tool'))).toEqual(['echo', 'echo']);
    expect(rows(root, '[data-aicc-tool]').map((row) => cell(row, 'tool'))).toEqual(['echo']);
    expect(summary(root, 'manifest')).toBe('manifest (1 of 3 tools)');
    expect(rows(root, '[data-aicc-event]').map((row) => cell(row, 'event'))).toEqual(['state_change', 'state_change', 'audio']);
    // Both at once.
    inspector!.setFilter({ character: 'moss' });
    expect(calls(root)).toEqual(['moss echo']);
  });

  it('keeps offering the chosen character after its rows are gone, and says when nothing matches', async () => {
    const { root, frames } = await village();
    inspector!.setFilter({ character: 'ghost' });
    expect(choices(root, 'character')).toEqual(['all characters', 'moss', 'wren', 'ghost']);
    expect(root.querySelector<HTMLSelectElement>('[data-aicc-filter="character"]')!.value).toBe('ghost');
    expect(root.querySelector('[data-aicc-list="calls"] > [data-aicc-empty]')!.textContent).toBe('no call matches the filter');
    frames.flush();
    expect(calls(root)).toEqual([]);
  });

  it('refuses a filter that is not a string or null', async () => {
    await village();
    expect(() => inspector!.setFilter({ tool: 3 as unknown as string })).toThrow('inspector.setFilter: expected tool to be a string or null, got 3');
  });
});

describe('docking and folding', () => {
  it('sits in the bottom-right corner unless told, and moves to any corner or side from code or its list', async () => {
    const { root } = await village();
    expect([DEFAULT_DOCK, root.getAttribute('data-dock')]).toEqual(['bottom-right', 'bottom-right']);
    const select = root.querySelector<HTMLSelectElement>('[data-aicc-dock]')!;
    expect(Array.from(select.options).map((option) => option.value)).toEqual([...DOCKS]);
    inspector!.dockTo('left');
    expect([inspector!.dock, root.getAttribute('data-dock'), select.value]).toEqual(['left', 'left', 'left']);
    choose(select, 'top-right');
    expect([inspector!.dock, root.getAttribute('data-dock')]).toEqual(['top-right', 'top-right']);
    expect(() => inspector!.dockTo('middle' as 'left')).toThrow(
      'inspector.dockTo: expected one of bottom-right, bottom-left, top-right, top-left, right, left, got middle',
    );
  });

  it('takes a dock at mount, and refuses one it does not know', async () => {
    const { capsule } = makeCapsule();
    inspector = mountInspector(capsule, { dock: 'top-left', schedule: new ManualFrames().schedule });
    expect(inspector.element.getAttribute('data-dock')).toBe('top-left');
    expect(() => mountInspector(capsule, { dock: 'centre' as 'left' })).toThrow(
      expect.objectContaining({
        code: 'AICC_INVALID_OPTION',
        message: 'mountInspector: expected dock to be one of bottom-right, bottom-left, top-right, top-left, right, left, got centre',
      }),
    );
  });

  it('opens the live traffic (calls, events) at mount and folds the rest to their title line', async () => {
    const { root } = await village();
    const open = Array.from(root.querySelectorAll<HTMLDetailsElement>('details[data-aicc-section]')).map((section) => [
      section.getAttribute('data-aicc-section'),
      section.open,
    ]);
    expect(open).toEqual([
      ['sessions', false],
      ['manifest', false],
      ['calls', true],
      ['quota', false],
      ['events', true],
    ]);
    expect(summary(root, 'sessions')).toBe('sessions (2)');
  });
});

describe('strict CSP', () => {
  it('gives no element a style attribute, whatever it shows', async () => {
    const { root } = await village();
    for (const row of rows(root, '[data-aicc-call]')) row.click();
    inspector!.dockTo('right');
    inspector!.close();
    inspector!.open();
    expect(root.querySelectorAll('[style]')).toHaveLength(0);
    expect(rows(root, '[data-aicc-detail]')).toHaveLength(5);
  });

  it('adopts its stylesheet where the document takes constructed ones (CSP does not govern them), and drops it on dispose', () => {
    const page = document.implementation.createHTMLDocument('page');
    Object.defineProperty(page, 'defaultView', { value: window });
    const other = new CSSStyleSheet();
    Object.defineProperty(page, 'adoptedStyleSheets', { value: [other], writable: true });
    const { capsule } = makeCapsule();
    const mounted = mountInspector(capsule, { parent: page.body, schedule: new ManualFrames().schedule });
    expect(page.adoptedStyleSheets).toHaveLength(2);
    expect(page.adoptedStyleSheets[1]!.cssRules.length).toBeGreaterThan(10);
    expect(page.querySelector('style')).toBeNull();
    mounted.dispose();
    expect(page.adoptedStyleSheets).toEqual([other]);
  });
});
