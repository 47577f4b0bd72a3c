// The capsule's side of the overlay: a header line and five sections (sessions, manifest, calls,
// quota, events), each a <details> with column headers over its rows, filtered by character and
// tool. Rows are keyed (calls and events by their sequence number, sessions and quota by id), so a
// redraw touches only rows that are new, changed or dropped; the manifest is rebuilt only when the
// catalog changed, and the call and event lists when the filter did. A call row opens (click, Enter)
// to show its input, output and error at the length the record kept them. With a character chosen,
// the calls come from that character's own ring; a list that stops at its bound says "200 of N".

import { clip } from '../base/clip.js';
import type { Capsule } from '../runtime/capsule.js';
import { el } from './dom.js';
import type { InspectorFilter } from './overlay.js';
import { type Cell, count, describeLimits, drawCall, drawEvent, matches, outOf } from './cells.js';
import { MAX_NAME_CHARS, type CallRow, type InspectorRecord } from './record.js';

type Section = 'sessions' | 'manifest' | 'calls' | 'quota' | 'events';

/** Each section's columns: the header row's labels, and the `data-cell` names of its rows' cells. */
const COLUMNS: Record<Section, readonly string[]> = {
  sessions: ['id', 'character', 'model', 'state', 'calls', 'subscriptions'],
  manifest: ['tool', 'class', 'capability', 'limits', 'description'],
  calls: ['character', 'tool', 'result', 'latency', 'input', 'output'],
  quota: ['character', 'tool', 'minute', 'session'],
  events: ['tick', 'event', 'detail'],
};
const SECTIONS = Object.keys(COLUMNS) as Section[];
/** Open at mount: the live traffic. The others fold to their title until opened. */
const OPEN_AT_MOUNT: ReadonlySet<Section> = new Set(['calls', 'events']);

interface KeyedRow {
  key: string;
  attributes: Record<string, string>;
  cells: Cell[];
}

interface Shown {
  el: HTMLElement;
  row: CallRow;
  version: number;
}

/** What the panel draws from: the bound capsule, what was recorded of it, and the clock. */
export interface Source {
  capsule: Capsule;
  record: InspectorRecord;
  now: () => number;
}

export class Panel {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly lists = {} as Record<Section, HTMLElement>;
  private readonly titles = {} as Record<Section, HTMLElement>;
  private readonly calls = new Map<number, Shown>();
  private readonly events = new Map<number, HTMLElement>();
  /** Sessions and quota rows by key, with the text they show: a row is redrawn only when that changes. */
  private readonly keyed = {
    sessions: new Map<string, { el: HTMLElement; signature: string }>(),
    quota: new Map<string, { el: HTMLElement; signature: string }>(),
  };
  /** Calls shown opened, by seq: a subset of the rows shown. */
  private readonly expanded = new Set<number>();
  private source: Source | undefined;
  private manifestShown: unknown;
  private filterShown = '';

  constructor(
    private readonly doc: Document,
    private readonly maxRows: number,
  ) {
    this.element = el(doc, 'div', { 'data-aicc-capsule': '' });
    this.header = el(doc, 'div', { 'data-aicc-header': '' });
    this.element.append(this.header);
    for (const name of SECTIONS) {
      const section = el(doc, 'details', { 'data-aicc-section': name });
      (section as HTMLDetailsElement).open = OPEN_AT_MOUNT.has(name);
      this.titles[name] = el(doc, 'summary', {}, name);
      const columns = el(doc, 'div', { 'data-aicc-columns': '', 'aria-hidden': 'true' });
      columns.append(...COLUMNS[name].map((column) => el(doc, 'span', { 'data-cell': column }, column)));
      this.lists[name] = el(doc, 'div', { 'data-aicc-list': name });
      section.append(this.titles[name], columns, this.lists[name]);
      this.element.append(section);
    }
    this.lists.calls.addEventListener('click', (event) => this.toggleCall(event.target));
    this.lists.calls.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      this.toggleCall(event.target);
    });
  }

  /** Shows another capsule (or none): every row of the one before goes. */
  show(source: Source | undefined): void {
    this.source = source;
    for (const list of Object.values(this.lists)) list.replaceChildren();
    this.calls.clear();
    this.events.clear();
    this.keyed.sessions.clear();
    this.keyed.quota.clear();
    this.expanded.clear();
    this.manifestShown = undefined;
    this.header.textContent = '';
  }

  render(filter: InspectorFilter): void {
    const source = this.source;
    if (source === undefined) return;
    const { capsule, record } = source;
    const live = capsule.sessions().length;
    const { calls, ok, errors, events, failures } = record.totals;
    const unread = failures === 0 ? '' : ` · ${failures} capsule events the inspector could not read`;
    this.header.textContent = `${clip(capsule.world.name, MAX_NAME_CHARS)} · tick ${capsule.tick} · ${live} live session${live === 1 ? '' : 's'} · calls ${calls} (${ok} ok, ${errors} failed) · events ${events}${unread}`;
    // A new filter brings back rows of any age: the call and event lists are built again, in order.
    const filterKey = `${filter.character}\n${filter.tool}`;
    if (filterKey !== this.filterShown) {
      this.filterShown = filterKey;
      this.lists.calls.replaceChildren();
      this.lists.events.replaceChildren();
      this.calls.clear();
      this.events.clear();
      this.expanded.clear();
      this.manifestShown = undefined;
    }
    this.renderSessions(source, filter);
    this.renderManifest(source, filter);
    this.renderCalls(source, filter);
    this.renderQuota(source, filter);
    this.renderEvents(source, filter);
  }

  /** The characters and tools the filters offer: those of the rows held and of the manifest. */
  choices(): { character: string[]; tool: string[] } {
    const characters = new Set<string>();
    const tools = new Set<string>();
    if (this.source !== undefined) {
      for (const session of this.source.record.sessions.values()) characters.add(clip(session.character, MAX_NAME_CHARS));
      for (const tool of this.source.capsule.tools()) tools.add(tool.id);
      for (const character of this.source.record.callers()) characters.add(character);
      for (const call of this.source.record.calls) if (call.tool !== '?') tools.add(call.tool);
    }
    return { character: [...characters].sort(), tool: [...tools].sort() };
  }

  private renderSessions({ record }: Source, filter: InspectorFilter): void {
    const rows: KeyedRow[] = [];
    for (const session of record.sessions.values()) {
      const character = clip(session.character, MAX_NAME_CHARS);
      if (filter.character !== null && character !== filter.character) continue;
      const { calls, refusals } = session.stats;
      rows.push({
        key: session.id,
        attributes: { 'data-aicc-session': session.id, 'data-state': session.state },
        cells: [
          ['id', session.id.slice(0, 8), session.id],
          ['character', character],
          ['model', session.agentModel.class],
          ['state', session.state],
          ['calls', `${calls}, refused ${refusals}`],
          ['subscriptions', [...session.subscriptions].join(', ') || 'no events'],
        ],
      });
    }
    // Unfiltered, the list says when sessions were dropped for the bound.
    const seen = filter.character === null ? record.sessionsSeen : rows.length;
    this.sync('sessions', rows, `sessions (${outOf(rows.length, seen)})`, 'no sessions yet');
  }

  private renderManifest({ capsule }: Source, filter: InspectorFilter): void {
    const tools = capsule.tools();
    // The capsule hands out the same array until its catalog changes; a new filter resets manifestShown.
    if (tools === this.manifestShown) return;
    this.manifestShown = tools;
    const shown = tools.filter((tool) => filter.tool === null || tool.id === filter.tool);
    const rows = shown.map((tool) =>
      this.row({ 'data-aicc-tool': tool.id, 'data-class': tool.class }, [
        ['tool', tool.id],
        ['class', tool.class],
        ['capability', tool.requires_capability ?? 'no capability'],
        ['limits', describeLimits(tool.limits)],
        ['description', clip(tool.description, 120), tool.description],
      ]),
    );
    this.lists.manifest.replaceChildren(...rows);
    const count = shown.length === tools.length ? `${tools.length} tools` : `${shown.length} of ${tools.length} tools`;
    this.title('manifest', `manifest (${count})`, rows.length === 0 ? 'no tools registered' : undefined);
  }

  private renderCalls({ record }: Source, filter: InspectorFilter): void {
    const held = new Set<number>();
    // A character's own ring keeps its calls when the crowd's push them out of the shared list.
    const kept = filter.character === null ? { rows: record.calls, total: record.totals.calls } : (record.callsOf(filter.character) ?? { rows: [], total: 0 });
    for (const row of kept.rows) {
      if (!matches(filter, [row.character], row.tool)) continue;
      held.add(row.seq);
      let shown = this.calls.get(row.seq);
      if (shown === undefined) {
        shown = { el: this.el('div', { 'data-aicc-call': row.callId, tabindex: '0' }), row, version: -1 };
        this.calls.set(row.seq, shown);
        // Rows arrive in order, so prepending keeps the newest on top.
        this.lists.calls.prepend(shown.el);
      }
      if (shown.version !== row.version) {
        drawCall(this, shown.el, row, this.expanded.has(row.seq));
        shown.version = row.version;
      }
    }
    this.prune(this.calls, held, (shown) => shown.el);
    this.title(
      'calls',
      `calls (${count(held.size, kept.rows.length, kept.total)})`,
      held.size === 0 ? (record.calls.length === 0 ? 'no calls yet' : 'no call matches the filter') : undefined,
    );
  }

  private renderEvents({ record }: Source, filter: InspectorFilter): void {
    const held = new Set<number>();
    // An event is another character's when it names one: a door or a bell is everyone's news.
    const characters = filter.character === null ? undefined : new Set([...record.sessions.values()].map((session) => clip(session.character, MAX_NAME_CHARS)));
    for (const row of record.events) {
      const names = characters === undefined ? row.names : row.names.filter((name) => characters.has(name));
      if (!matches(filter, names, row.tool)) continue;
      held.add(row.seq);
      if (this.events.has(row.seq)) continue;
      const element = drawEvent(this, row);
      this.events.set(row.seq, element);
      this.lists.events.prepend(element);
    }
    this.prune(this.events, held, (element) => element);
    this.title(
      'events',
      `events (${count(held.size, record.events.length, record.totals.events)})`,
      held.size === 0 ? (record.events.length === 0 ? 'no events yet' : 'no event matches the filter') : undefined,
    );
  }

  private renderQuota({ capsule, record, now }: Source, filter: InspectorFilter): void {
    const limits = new Map(capsule.tools().map((tool) => [tool.id, tool.limits]));
    const at = now();
    const rows: KeyedRow[] = [];
    // The list stops at maxRows rows; the rest are counted, so its title can say "200 of 340".
    let all = 0;
    for (const session of record.sessions.values()) {
      const character = clip(session.character, MAX_NAME_CHARS);
      if (session.state === 'closed' || (filter.character !== null && character !== filter.character)) continue;
      for (const usage of session.toolUsage(at)) {
        if (filter.tool !== null && usage.tool !== filter.tool) continue;
        if (++all > this.maxRows) continue;
        const limit = limits.get(usage.tool);
        const perMinute = limit?.calls_per_minute;
        const perSession = limit?.calls_per_session;
        rows.push({
          key: `${session.id} ${usage.tool}`,
          attributes: { 'data-aicc-quota': usage.tool, 'data-session': session.id },
          cells: [
            ['character', character],
            ['tool', usage.tool],
            ['minute', perMinute === undefined ? 'no per-minute limit' : `${usage.inWindow}/${perMinute} this minute`],
            ['session', perSession === undefined ? `${usage.used} this session` : `${usage.used}/${perSession} this session`],
          ],
        });
      }
    }
    this.sync('quota', rows, `quota (${outOf(rows.length, all)})`, 'no tool used yet');
  }

  /** Opens or closes the call row an event happened in (not inside its opened part, where text is selected). */
  private toggleCall(target: EventTarget | null): void {
    const element = target as Element | null;
    if (typeof element?.closest !== 'function' || element.closest('[data-aicc-detail]') !== null) return;
    const rowElement = element.closest('[data-aicc-call]');
    for (const [seq, shown] of this.calls) {
      if (shown.el !== rowElement) continue;
      if (!this.expanded.delete(seq)) this.expanded.add(seq);
      drawCall(this, shown.el, shown.row, this.expanded.has(seq));
      shown.version = shown.row.version;
      return;
    }
  }

  /** Puts `rows` in the list in this order, reusing each key's element and redrawing it only when its text changed. */
  private sync(name: keyof Panel['keyed'], rows: KeyedRow[], title: string, empty: string): void {
    const shown = this.keyed[name];
    const list = this.lists[name];
    const held = new Set<string>();
    let previous: Element | null = null;
    for (const row of rows) {
      held.add(row.key);
      const signature = JSON.stringify([row.attributes, row.cells]);
      let entry = shown.get(row.key);
      if (entry === undefined) shown.set(row.key, (entry = { el: this.doc.createElement('div'), signature: '' }));
      if (entry.signature !== signature) {
        this.draw(entry.el, row.attributes, row.cells);
        entry.signature = signature;
      }
      const expected: Element | null = previous === null ? list.firstElementChild : previous.nextElementSibling;
      if (expected !== entry.el) list.insertBefore(entry.el, expected);
      previous = entry.el;
    }
    for (const [key, entry] of shown) {
      if (held.has(key)) continue;
      entry.el.remove();
      shown.delete(key);
    }
    this.title(name, title, rows.length === 0 ? empty : undefined);
  }

  /** The section title, and a placeholder line while the section shows no row. */
  private title(name: Section, title: string, empty: string | undefined): void {
    this.titles[name].textContent = title;
    const list = this.lists[name];
    const placeholder = list.querySelector(':scope > [data-aicc-empty]');
    if (empty === undefined) placeholder?.remove();
    else if (placeholder === null) list.append(this.el('div', { 'data-aicc-empty': '' }, empty));
    else placeholder.textContent = empty;
  }

  private prune<V>(shown: Map<number, V>, held: ReadonlySet<number>, element: (value: V) => HTMLElement): void {
    if (shown.size === held.size) return;
    for (const [seq, value] of shown) {
      if (held.has(seq)) continue;
      element(value).remove();
      shown.delete(seq);
      this.expanded.delete(seq);
    }
  }

  /** A new row of text cells. */
  row(attributes: Record<string, string>, cells: Cell[]): HTMLElement {
    return this.draw(this.doc.createElement('div'), attributes, cells);
  }

  /** Sets a row's attributes and replaces its cells. */
  draw(row: HTMLElement, attributes: Record<string, string>, cells: Cell[]): HTMLElement {
    for (const [name, value] of Object.entries(attributes)) row.setAttribute(name, value);
    row.replaceChildren(
      ...cells.map(([name, text, title]) => this.el('span', title === undefined ? { 'data-cell': name } : { 'data-cell': name, title }, text)),
    );
    return row;
  }

  el(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
    return el(this.doc, tag, attributes, text);
  }
}
