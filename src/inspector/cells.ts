// What each row of the panel says: the text of its cells (a call's result, latency and opened
// part, an event's tick and detail, a tool's limits), the section titles' counts, and which rows a
// filter lets through. The panel (panel.ts) keeps the rows and puts these into the page.

import { clip } from '../base/clip.js';
import type { Limits } from '../protocol/messages.js';
import type { InspectorFilter } from './overlay.js';
import { MAX_VALUE_CHARS, type CallRow, type EventRow } from './record.js';

/** Whether a row naming these characters (none: about no one in particular) and this tool (none: no tool) passes. */
export function matches(filter: InspectorFilter, names: readonly string[], tool: string | undefined): boolean {
  if (filter.character !== null && names.length > 0 && !names.includes(filter.character)) return false;
  return filter.tool === null || tool === undefined || tool === filter.tool;
}

/** `200 of 340` when a list stopped at its bound, else the count alone. */
export function outOf(shown: number, all: number): string {
  return shown >= all ? String(shown) : `${shown} of ${all}`;
}

export function count(shown: number, held: number, total: number): string {
  return shown === held ? `last ${held} of ${total}` : `${shown} shown of the last ${held} of ${total}`;
}

/** A text cell: [name (its data-cell), text, title?]. */
export type Cell = [string, string, string?];

/** What the cells are drawn with: the panel's element makers (Panel is one). */
export interface Drawing {
  row(attributes: Record<string, string>, cells: Cell[]): HTMLElement;
  draw(row: HTMLElement, attributes: Record<string, string>, cells: Cell[]): HTMLElement;
  el(tag: string, attributes?: Record<string, string>, text?: string): HTMLElement;
}

export function drawCall(panel: Drawing, element: HTMLElement, row: CallRow, expanded: boolean): void {
  if (row.state === 'ok' || row.state === 'error') element.setAttribute('data-ok', String(row.state === 'ok'));
  const result =
    row.state === 'ok' ? 'ok' : row.state === 'error' ? (row.errorCode ?? 'error') : row.state === 'running' ? 'running' : 'no result: session closed';
  const output = row.output ?? row.errorMessage ?? '';
  panel.draw(element, { 'data-state': row.state, 'aria-expanded': String(expanded) }, [
    ['character', row.character],
    ['tool', row.tool, `call_id ${row.callId}`],
    ['result', result, row.errorMessage ?? ''],
    ['latency', row.latencyMs === undefined ? '' : `${formatMs(row.latencyMs)} ms`],
    ['input', row.input],
    ['output', clip(output, MAX_VALUE_CHARS)],
  ]);
  if (!expanded) return;
  const fields: Array<[string, string]> = [
    ['call_id', row.callId],
    ['input', row.inputDetail],
  ];
  if (row.output !== undefined) fields.push(['output', row.output]);
  if (row.errorCode !== undefined) fields.push(['error', `${row.errorCode}${row.retryable === true ? ' (retryable)' : ''}: ${row.errorMessage ?? ''}`]);
  if (row.state === 'running' || row.state === 'unanswered') fields.push(['result', result]);
  const detail = panel.el('dl', { 'data-aicc-detail': '' });
  for (const [name, text] of fields) detail.append(panel.el('dt', {}, name), panel.el('dd', { 'data-field': name }, text));
  element.append(detail);
}

export function drawEvent(panel: Drawing, row: EventRow): HTMLElement {
  return panel.row({ 'data-aicc-event': row.label, 'data-kind': row.kind }, [
    ['tick', `#${row.tick}`],
    ['event', row.label],
    ['detail', row.detail, row.detail],
  ]);
}

export function describeLimits(limits: Limits | undefined): string {
  const parts: string[] = [];
  if (limits?.calls_per_minute !== undefined) parts.push(`${limits.calls_per_minute}/min`);
  if (limits?.calls_per_session !== undefined) parts.push(`${limits.calls_per_session}/session`);
  return parts.length === 0 ? 'no limits' : parts.join(', ');
}

export function formatMs(ms: number): string {
  return ms >= 100 ? String(Math.round(ms)) : ms.toFixed(1).replace(/\.0$/, '');
}
