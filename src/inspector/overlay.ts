// The overlay's lasting parts, which outlive the capsule shown: the root, the toggle button, the
// filter and dock controls, and the place the panel of the capsule bound now goes. A Phaser scene
// that restarts swaps the panel; the place, the filters and the open state stay.

import { el } from './dom.js';
import { ROOT_ATTRIBUTE } from './style.js';

/** Where the overlay sits: a corner of the page, or a whole side. */
export const DOCKS = ['bottom-right', 'bottom-left', 'top-right', 'top-left', 'right', 'left'] as const;
export type Dock = (typeof DOCKS)[number];

/** What the lists show: only this character's rows, only this tool's; null for all. */
export interface InspectorFilter {
  character: string | null;
  tool: string | null;
}

export type FilterName = keyof InspectorFilter;

export class Overlay {
  readonly root: HTMLElement;
  readonly button: HTMLButtonElement;
  readonly body: HTMLElement;
  /** Where the bound capsule's panel goes. */
  readonly content: HTMLElement;
  readonly filters: Record<FilterName, HTMLSelectElement>;
  readonly dock: HTMLSelectElement;
  /** What each filter's options were last built from: rebuilt only when that changes. */
  private readonly offered: Record<FilterName, string | undefined> = { character: undefined, tool: undefined };

  constructor(
    private readonly doc: Document,
    key: string | null,
  ) {
    this.root = el(doc, 'div', { [ROOT_ATTRIBUTE]: '' });
    const hint = key === null ? 'AICC inspector' : `AICC inspector (${key})`;
    this.button = el(doc, 'button', { type: 'button', 'data-aicc-toggle': '', title: hint }, 'AICC') as HTMLButtonElement;
    this.body = el(doc, 'section', { 'data-aicc-panel': '', 'aria-label': 'AICC inspector' });
    const controls = el(doc, 'div', { 'data-aicc-controls': '' });
    this.filters = {
      character: this.select('data-aicc-filter', 'character', 'filter by character'),
      tool: this.select('data-aicc-filter', 'tool', 'filter by tool'),
    };
    this.dock = this.select('data-aicc-dock', '', 'dock the inspector');
    for (const dock of DOCKS) this.dock.append(this.option(dock, `dock ${dock}`));
    controls.append(this.filters.character, this.filters.tool, this.dock);
    this.content = el(doc, 'div', { 'data-aicc-content': '' });
    this.body.append(controls, this.content);
    this.root.append(this.body, this.button);
  }

  showOpen(open: boolean): void {
    this.root.setAttribute('data-open', String(open));
    this.button.setAttribute('aria-expanded', String(open));
    this.body.hidden = !open;
  }

  showDock(dock: Dock): void {
    this.root.setAttribute('data-dock', dock);
    this.dock.value = dock;
  }

  /** Nothing to show (the holder has no live capsule): the overlay leaves the page's view. */
  showBound(bound: boolean): void {
    this.root.hidden = !bound;
  }

  /** The filter's choices: "all", then `values`, and the selected value even when no row has it now. */
  offer(name: FilterName, values: readonly string[], selected: string | null): void {
    const shown = selected === null || values.includes(selected) ? values : [...values, selected];
    const signature = shown.join('\n');
    const select = this.filters[name];
    if (signature !== this.offered[name]) {
      this.offered[name] = signature;
      select.replaceChildren(this.option('', name === 'character' ? 'all characters' : 'all tools'), ...shown.map((value) => this.option(value, value)));
    }
    select.value = selected ?? '';
  }

  private select(attribute: string, value: string, label: string): HTMLSelectElement {
    return el(this.doc, 'select', { [attribute]: value, 'aria-label': label, title: label }) as HTMLSelectElement;
  }

  private option(value: string, text: string): HTMLOptionElement {
    const option = el(this.doc, 'option', {}, text) as HTMLOptionElement;
    option.value = value;
    return option;
  }
}
