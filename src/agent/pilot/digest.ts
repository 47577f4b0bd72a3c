// What happened since the model's last decision, gathered as it arrives and told in a few compact
// lines: the results of its calls (refusals with their reasons, so it can correct them), the news
// (ticks collapsed to one line, state changes summed up per entity and field), notes from the pilot,
// and the quotas left. It is a fraction of the size of the AICC JSON that carried the same facts.

import type { CallOutcome } from '../agentClient.js';
import type { EventMessage, JsonObject } from '../../protocol/messages.js';
import { clip } from '../../base/clip.js';
import { compact, word } from '../../runtime/compact.js';

export interface DigestOptions {
  /** The character's id: shown as "you" in the news. */
  self: string;
  /** Most news lines in one digest; the rest are counted. Default 30. */
  maxNewsLines?: number;
  /** Most notes in one digest; the rest are counted. Default 12. */
  maxNotes?: number;
  /** Longest rendering of one tool output. Default 600. */
  maxOutputChars?: number;
  /**
   * The game's own view of a tool's output for the model, e.g. only the prose of a `look`. Default:
   * the whole output in compact notation.
   */
  outputView?: (tool: string, output: JsonObject) => unknown;
}

/** A call as the model asked for it. */
export interface AskedCall {
  tool: string;
  input: JsonObject;
}

/** A line of news; a state change keeps its chain of values so later changes extend it. */
type NewsLine = { text: string } | { entity: string; field: string; values: unknown[] };

/** The mark on words other players or characters wrote (briefing.ts's UNTRUSTED_NOTE says what it means). */
export const UNTRUSTED = '[untrusted]';

/** Values shown per state-change chain: the first, then the last few. */
const MAX_CHAIN = 4;

/** Whether news should interrupt the model mid-run: a collision, or words addressed to it. */
export function isUrgent(event: EventMessage, self: string): boolean {
  if (event.topic === 'collision') return true;
  return event.topic === 'agent_message' && event.payload['to'] === self;
}

export class Digest {
  private results: string[] = [];
  private news: NewsLine[] = [];
  private readonly chains = new Map<string, Extract<NewsLine, { values: unknown[] }>>();
  private notes: string[] = [];
  /** Tools whose calls reached their handler since the last digest: their quota moved. */
  private called = new Set<string>();
  private ticks = 0;
  private tickMs = 0;
  private lastTick: number | undefined;
  private dropped = 0;
  private readonly alias: ReadonlyMap<string, string>;
  private readonly maxNewsLines: number;
  private readonly maxOutputChars: number;
  private readonly maxNotes: number;

  constructor(private readonly options: DigestOptions) {
    this.alias = new Map([[options.self, 'you']]);
    this.maxNewsLines = options.maxNewsLines ?? 30;
    this.maxOutputChars = options.maxOutputChars ?? 600;
    this.maxNotes = options.maxNotes ?? 12;
  }

  /** Anything worth a decision: everything but the passing of time. */
  get hasNews(): boolean {
    return this.results.length > 0 || this.news.length > 0 || this.notes.length > 0 || this.dropped > 0;
  }

  addEvent(event: EventMessage): void {
    const dropped = event.meta?.['dropped_events'];
    if (typeof dropped === 'number') this.dropped += dropped;
    const p = event.payload;
    switch (event.topic) {
      case 'tick':
        this.ticks += typeof p['ticks'] === 'number' ? p['ticks'] : 1;
        this.tickMs += typeof p['dt_ms'] === 'number' ? p['dt_ms'] : 0;
        if (typeof p['tick'] === 'number') this.lastTick = p['tick'];
        return;
      case 'state_change': {
        const entity = String(p['entity']);
        const field = String(p['field']);
        const key = `${entity}\u0000${field}`;
        const chain = this.chains.get(key);
        if (chain !== undefined) chain.values.push(p['value']);
        else {
          const line = { entity, field, values: 'previous' in p ? [p['previous'], p['value']] : [p['value']] };
          this.chains.set(key, line);
          this.news.push(line);
        }
        return;
      }
      case 'agent_message': {
        const to = typeof p['to'] === 'string' ? ` to ${this.name(p['to'])}` : '';
        // Words another player or character wrote: quoted, with who wrote them, and marked (the briefing says what the mark means).
        this.news.push({ text: `${this.name(p['from'])}${to} ${UNTRUSTED}: ${JSON.stringify(clip(String(p['text']), 280))}` });
        return;
      }
      case 'audio':
        this.news.push({ text: `heard ${this.name(p['sound'])} from ${this.name(p['source'])}${this.extras(p, ['sound', 'source'])}` });
        return;
      case 'collision':
        this.news.push({
          text: `collision ${this.name(p['a'])} × ${this.name(p['b'])}${typeof p['phase'] === 'string' ? ` (${p['phase']})` : ''}${this.extras(p, ['a', 'b', 'phase'])}`,
        });
        return;
      default:
        this.news.push({ text: `${String(event.topic)}: ${compact(p, { alias: this.alias, maxLength: 300 })}` });
    }
  }

  /** A call's outcome: its output, or the refusal in the bridge's words. */
  addResult(call: AskedCall, outcome: CallOutcome): void {
    const asked = this.callText(call);
    if (outcome.meta.source === 'handler') this.called.add(call.tool);
    if (outcome.ok) {
      const view = this.options.outputView?.(call.tool, outcome.output) ?? outcome.output;
      const output = compact(view, { alias: this.alias, maxLength: this.maxOutputChars });
      this.results.push(`ok ${asked}${output === '' ? '' : ` → ${output}`}`);
    } else {
      const { code, message, retryable } = outcome.error;
      this.results.push(`REFUSED ${asked} (${code}${retryable ? ', retryable' : ''}): ${clip(message, 300)}`);
    }
  }

  /** A call that was not sent, and why. */
  addSkipped(call: AskedCall, why: string): void {
    this.results.push(`skipped ${this.callText(call)}: ${why}`);
  }

  /** Something the pilot itself must tell the model (an unreadable line, a catalog change). */
  addNote(text: string): void {
    this.notes.push(text);
  }

  /**
   * The digest as text, then empties itself. `quotas` writes the quota line from the tools called
   * since the last digest; '' leaves it out.
   */
  take(quotas: (called: ReadonlySet<string>) => string = () => ''): string {
    const lines: string[] = [];
    if (this.lastTick !== undefined || this.ticks > 0) {
      const span = this.ticks > 0 ? ` (+${this.ticks} ticks, ${(this.tickMs / 1000).toFixed(1)} s)` : '';
      lines.push(`tick ${this.lastTick ?? '?'}${span}`);
    }
    if (this.results.length > 0) lines.push('Results:', ...this.results.map((line) => `- ${line}`));
    const news = this.news.map((line) => ('text' in line ? line.text : this.chainText(line)));
    if (this.dropped > 0) news.push(`(${this.dropped} older events were dropped)`);
    if (news.length > 0) lines.push('News:', ...bounded(news, this.maxNewsLines));
    if (this.notes.length > 0) lines.push('Notes:', ...bounded(this.notes, this.maxNotes));
    const quotaLine = quotas(this.called);
    if (quotaLine !== '') lines.push(`Quota left: ${quotaLine}`);
    this.clear();
    return lines.join('\n');
  }

  private clear(): void {
    this.results = [];
    this.news = [];
    this.chains.clear();
    this.notes = [];
    this.called = new Set();
    this.ticks = 0;
    this.tickMs = 0;
    this.dropped = 0;
  }

  private callText(call: AskedCall): string {
    if (Object.keys(call.input).length === 0) return call.tool;
    return `${call.tool} {${compact(call.input, { maxLength: 200 })}}`;
  }

  /** `bram.room: mill → lane → orchard`; a long chain keeps its first and last values. */
  private chainText(line: Extract<NewsLine, { values: unknown[] }>): string {
    const values = line.values.filter((value, i) => i === 0 || JSON.stringify(value) !== JSON.stringify(line.values[i - 1])).map((value) => this.value(value));
    const text = (values.length > MAX_CHAIN ? [values[0]!, '…', ...values.slice(-(MAX_CHAIN - 1))] : values).join(' → ');
    return `${this.name(line.entity)}.${word(line.field, 64)}: ${text}`;
  }

  private value(value: unknown): string {
    return compact(value, { alias: this.alias, maxLength: 160 });
  }

  private name(value: unknown): string {
    return typeof value === 'string' ? word(this.alias.get(value) ?? value, 80) : this.value(value);
  }

  /** Payload fields not already shown, as ` (key: value, …)`. */
  private extras(payload: JsonObject, shown: readonly string[]): string {
    const rest = Object.fromEntries(Object.entries(payload).filter(([key]) => !shown.includes(key)));
    return Object.keys(rest).length === 0 ? '' : ` (${compact(rest, { alias: this.alias, maxLength: 160 })})`;
  }
}

/** `lines` as list items, at most `max` of them and a count of the rest. */
function bounded(lines: readonly string[], max: number): string[] {
  const shown = lines.slice(0, max).map((line) => `- ${line}`);
  if (lines.length > max) shown.push(`- … and ${lines.length - max} more`);
  return shown;
}
