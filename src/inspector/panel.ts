// The panel's DOM and how the record is drawn into it. Every value a peer or the game supplied goes
// in as text (textContent, attribute values), never as markup. Rows are keyed (calls and events by
// their sequence number, sessions and quota by id), so a redraw touches only rows that are new,
// changed or dropped; the manifest is rebuilt only when the catalog changed.

import { clip } from '../base/clip.js';
import type { Capsule } from '../runtime/capsule.js';
import type { Limits, ToolDescriptor } from '../protocol/messages.js';
import { MAX_NAME_CHARS, type CallRow, type EventRow, type InspectorRecord } from './record.js';
import { ROOT_ATTRIBUTE } from './style.js';

type Section = 'sessions' | 'manifest' | 'calls' | 'quota' | 'events';
const SECTIONS: readonly Section[] = ['sessions', 'manifest', 'calls', 'quota', 'events'];

interface Shown {
  el: HTMLElement;
  version: number;
}

/** A text cell: [name (its data-cell), text, title?]. */
export type Cell = [string, string, string?];

interface KeyedRow {
  key: string;
  attributes: Record<string, string>;
  cells: Cell[];
}

export class Panel {
  readonly root: HTMLElement;
  readonly button: HTMLButtonElement;
  readonly body: HTMLElement;
  private readonly header: HTMLElement;
  private readonly lists = {} as Record<Section, HTMLElement>;
  private readonly titles = {} as Record<Section, HTMLElement>;
  private readonly calls = new Map<number, Shown>();
  private readonly events = new Map<number, HTMLElement>();
  /** Sessions and quota rows by key, with the text they show: a row is redrawn only when that changes. */
  private readonly keyed = { sessions: new Map<string, { el: HTMLElement; signature: string }>(), quota: new Map<string, { el: HTMLElement; signature: string }>() };
  private toolsShown: readonly ToolDescriptor[] | undefined;

  constructor(
    private readonly doc: Document,
    private readonly capsule: Capsule,
    private readonly record: InspectorRecord,
    private readonly maxRows: number,
    private readonly now: () => number,
  ) {
    this.root = this.el('div', { [ROOT_ATTRIBUTE]: '' });
    this.button = this.el('button', { type: 'button', 'data-aicc-toggle': '', title: 'AICC inspector (`)' }, 'AICC') as HTMLButtonElement;
    this.body = this.el('section', { 'data-aicc-panel': '', 'aria-label': 'AICC inspector' });
    this.header = this.el('div', { 'data-aicc-header': '' });
    this.body.append(this.header);
    for (const name of SECTIONS) {
      this.titles[name] = this.el('h3', {}, name);
      this.lists[name] = this.el('div', { 'data-aicc-list': name });
      this.body.append(this.titles[name], this.lists[name]);
    }
    this.root.append(this.body, this.button);
  }

  /** Sets the open state the root, the button and the panel show. */
  showOpen(open: boolean): void {
    this.root.setAttribute('data-open', String(open));
    this.button.setAttribute('aria-expanded', String(open));
    this.body.hidden = !open;
  }

  render(): void {
    const { record, capsule } = this;
    const live = capsule.sessions().length;
    const { calls, ok, errors, events, failures } = record.totals;
    const unread = failures === 0 ? '' : ` · ${failures} capsule events the inspector could not read`;
    this.header.textContent = `${clip(capsule.world.name, MAX_NAME_CHARS)} · tick ${capsule.tick} · ${live} live session${live === 1 ? '' : 's'} · calls ${calls} (${ok} ok, ${errors} failed) · events ${events}${unread}`;
    this.renderSessions();
    this.renderManifest();
    this.renderCalls();
    this.renderQuota();
    this.renderEvents();
  }

  private renderSessions(): void {
    const rows: KeyedRow[] = [];
    for (const session of this.record.sessions.values()) {
      const { calls, refusals } = session.stats;
      rows.push({
        key: session.id,
        attributes: { 'data-aicc-session': session.id, 'data-state': session.state },
        cells: [
          ['id', session.id.slice(0, 8), session.id],
          ['character', clip(session.character, MAX_NAME_CHARS)],
          ['model', session.agentModel.class],
          ['state', session.state],
          ['dim', `calls ${calls}, refused ${refusals}`],
          ['subscriptions', [...session.subscriptions].join(', ') || 'no events'],
        ],
      });
    }
    this.sync('sessions', rows, `sessions (${rows.length})`, 'no sessions yet');
  }

  private renderManifest(): void {
    const tools = this.capsule.tools();
    // The capsule hands out the same array until its catalog changes.
    if (tools === this.toolsShown) return;
    this.toolsShown = tools;
    const rows = tools.map((tool) =>
      this.row({ 'data-aicc-tool': tool.id, 'data-class': tool.class }, [
        ['tool', tool.id],
        ['class', tool.class],
        ['capability', tool.requires_capability ?? 'no capability'],
        ['dim', describeLimits(tool.limits)],
        ['description', clip(tool.description, 120)],
      ]),
    );
    this.fill('manifest', rows, `manifest (${tools.length} tools)`, 'no tools registered');
  }

  private renderCalls(): void {
    const { calls } = this.record;
    const held = new Set<number>();
    for (const row of calls) {
      held.add(row.seq);
      let shown = this.calls.get(row.seq);
      if (shown === undefined) {
        shown = { el: this.el('div', { 'data-aicc-call': row.callId }), version: -1 };
        this.calls.set(row.seq, shown);
        // Rows arrive in order, so prepending keeps the newest on top.
        this.lists.calls.prepend(shown.el);
      }
      if (shown.version !== row.version) {
        drawCall(this, shown.el, row);
        shown.version = row.version;
      }
    }
    this.prune(this.calls, held, (shown) => shown.el);
    this.title('calls', `calls (last ${calls.length} of ${this.record.totals.calls})`, calls.length === 0 ? 'no calls yet' : undefined);
  }

  private renderEvents(): void {
    const { events } = this.record;
    const held = new Set<number>();
    for (const row of events) {
      held.add(row.seq);
      if (this.events.has(row.seq)) continue;
      const el = drawEvent(this, row);
      this.events.set(row.seq, el);
      this.lists.events.prepend(el);
    }
    this.prune(this.events, held, (el) => el);
    this.title('events', `events (last ${events.length} of ${this.record.totals.events})`, events.length === 0 ? 'no events yet' : undefined);
  }

  private renderQuota(): void {
    const limits = new Map(this.capsule.tools().map((tool) => [tool.id, tool.limits]));
    const now = this.now();
    const rows: KeyedRow[] = [];
    outer: for (const session of this.record.sessions.values()) {
      if (session.state === 'closed') continue;
      for (const usage of session.toolUsage(now)) {
        if (rows.length >= this.maxRows) break outer;
        const limit = limits.get(usage.tool);
        const perMinute = limit?.calls_per_minute;
        const perSession = limit?.calls_per_session;
        rows.push({
          key: `${session.id} ${usage.tool}`,
          attributes: { 'data-aicc-quota': usage.tool, 'data-session': session.id },
          cells: [
            ['character', clip(session.character, MAX_NAME_CHARS)],
            ['tool', usage.tool],
            ['minute', perMinute === undefined ? 'no per-minute limit' : `${usage.inWindow}/${perMinute} this minute`],
            ['session', perSession === undefined ? `${usage.used} this session` : `${usage.used}/${perSession} this session`],
          ],
        });
      }
    }
    this.sync('quota', rows, `quota (${rows.length})`, 'no tool used yet');
  }

  private fill(name: Section, rows: HTMLElement[], title: string, empty: string): void {
    this.lists[name].replaceChildren(...rows);
    this.title(name, title, rows.length === 0 ? empty : undefined);
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

  /** The section title, and a placeholder line while the section is empty. */
  private title(name: Section, title: string, empty: string | undefined): void {
    this.titles[name].textContent = title;
    const list = this.lists[name];
    const placeholder = list.querySelector(':scope > [data-aicc-empty]');
    if (empty === undefined) placeholder?.remove();
    else if (placeholder === null) list.append(this.el('div', { 'data-aicc-empty': '' }, empty));
  }

  private prune<V>(shown: Map<number, V>, held: ReadonlySet<number>, element: (value: V) => HTMLElement): void {
    if (shown.size === held.size) return;
    for (const [seq, value] of shown) {
      if (held.has(seq)) continue;
      element(value).remove();
      shown.delete(seq);
    }
  }

  /** A new row of text cells. */
  row(attributes: Record<string, string>, cells: Cell[]): HTMLElement {
    return this.draw(this.doc.createElement('div'), attributes, cells);
  }

  /** Sets a row's attributes and replaces its cells. */
  draw(row: HTMLElement, attributes: Record<string, string>, cells: Cell[]): HTMLElement {
    for (const [name, value] of Object.entries(attributes)) row.setAttribute(name, value);
    row.replaceChildren(...cells.map(([name, text, title]) => this.el('span', title === undefined ? { 'data-cell': name } : { 'data-cell': name, title }, text)));
    return row;
  }

  el(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
    const element = this.doc.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    if (text !== undefined) element.textContent = text;
    return element;
  }
}

function drawCall(panel: Panel, el: HTMLElement, row: CallRow): void {
  if (row.state === 'ok' || row.state === 'error') el.setAttribute('data-ok', String(row.state === 'ok'));
  const result = row.state === 'ok' ? 'ok' : row.state === 'error' ? (row.errorCode ?? 'error') : row.state === 'running' ? 'running' : 'no result: session closed';
  panel.draw(el, { 'data-state': row.state }, [
    ['character', row.character],
    ['tool', row.tool, `call_id ${row.callId}`],
    ['result', result, row.errorMessage ?? ''],
    ['latency', row.latencyMs === undefined ? '' : `${formatMs(row.latencyMs)} ms`],
    ['input', row.input],
  ]);
}

function drawEvent(panel: Panel, row: EventRow): HTMLElement {
  return panel.row({ 'data-aicc-event': row.label, 'data-kind': row.kind }, [
    ['dim', `#${row.tick}`],
    ['label', row.label],
    ['detail', row.detail],
  ]);
}

function describeLimits(limits: Limits | undefined): string {
  const parts: string[] = [];
  if (limits?.calls_per_minute !== undefined) parts.push(`${limits.calls_per_minute}/min`);
  if (limits?.calls_per_session !== undefined) parts.push(`${limits.calls_per_session}/session`);
  return parts.length === 0 ? 'no limits' : parts.join(', ');
}

function formatMs(ms: number): string {
  return ms >= 100 ? String(Math.round(ms)) : ms.toFixed(1).replace(/\.0$/, '');
}
