// What happened in a headless run, for people and for diffs: calls by tool, refusals by code and each
// agent's decision latency, gathered from the capsule's host events. Everything here but the wall
// time is a function of the seed: it comes first, and the wall-time lines come last under their own
// heading, so a reproducibility check can compare `format()` (or `toJSON()`) byte for byte.

import type { CallRecord } from '../../runtime/calls.js';
import type { Capsule, SessionChange } from '../../runtime/capsule.js';
import type { SessionView } from '../../runtime/sessionTypes.js';
import type { HeadlessResult } from './runner.js';

export interface RunSummaryJSON {
  calls: { total: number; byTool: Record<string, number> };
  refusals: { total: number; byCode: Record<string, number> };
  /**
   * Per character: its session's measured decision latency on the capsule's clock (simulated ms),
   * null while it has made no decision after news. A character's latest session counts.
   */
  decisionLatencyMs: Record<string, number | null>;
}

/** The heading above the lines that vary from run to run; everything before it is reproducible. */
export const WALL_TIME_HEADING = '-- wall time (varies run to run) --';

export class RunSummary {
  private readonly callsByTool = new Map<string, number>();
  private readonly refusalsByCode = new Map<string, number>();
  /** Each character's latest session while it is open; its last figure once it has closed. */
  private readonly agents = new Map<string, SessionView | { closedWith: number | undefined }>();
  private readonly offs: Array<() => void>;

  constructor(capsule: Capsule) {
    for (const session of capsule.sessions()) this.agents.set(session.character, session);
    this.offs = [capsule.on('call', (record) => this.called(record)), capsule.on('session', (change) => this.changed(change))];
  }

  /** Stops listening; what was gathered stays. */
  detach(): void {
    for (const off of this.offs.splice(0)) off();
  }

  toJSON(): RunSummaryJSON {
    const latency: Record<string, number | null> = {};
    for (const character of [...this.agents.keys()].sort()) {
      const agent = this.agents.get(character)!;
      latency[character] = ('closedWith' in agent ? agent.closedWith : agent.stats.decisionLatencyMs) ?? null;
    }
    return {
      calls: { total: sum(this.callsByTool), byTool: sorted(this.callsByTool) },
      refusals: { total: sum(this.refusalsByCode), byCode: sorted(this.refusalsByCode) },
      decisionLatencyMs: latency,
    };
  }

  /**
   * Readable lines: ticks, calls by tool, refusals by code, decision latency across agents and per
   * agent; then, with a result, the wall-time lines under WALL_TIME_HEADING. `stopped` says why the
   * run ended in the host's words (its stopWhen knows what the condition was); default
   * `stopped by ticks` or `stopped by condition`.
   */
  format(result?: HeadlessResult, stopped?: string): string[] {
    const json = this.toJSON();
    const lines: string[] = [];
    if (result !== undefined) lines.push(`ticks: ${result.ticks} (${stopped ?? `stopped by ${result.stoppedBy}`})`);
    lines.push(`calls: ${json.calls.total}${counts(json.calls.byTool)}`);
    lines.push(`refusals: ${json.refusals.total}${counts(json.refusals.byCode)}`);
    const entries = Object.entries(json.decisionLatencyMs);
    const measured = entries.flatMap(([, ms]) => (ms === null ? [] : [ms]));
    if (measured.length === 0) {
      lines.push(`decision latency: none measured (${entries.length} agent${entries.length === 1 ? '' : 's'})`);
    } else {
      const mean = measured.reduce((a, b) => a + b, 0) / measured.length;
      lines.push(
        `decision latency (simulated ms): ${measured.length} of ${entries.length} agents measured, mean ${ms(mean)}, min ${ms(Math.min(...measured))}, max ${ms(Math.max(...measured))}`,
      );
    }
    for (const [character, latency] of entries) lines.push(`  ${character}: ${latency === null ? 'not measured' : `${ms(latency)} ms`}`);
    if (result !== undefined) {
      lines.push(WALL_TIME_HEADING);
      lines.push(`wall: ${ms(result.wallMs)} ms, ${Math.round(result.ticksPerSecond)} ticks/s`);
    }
    return lines;
  }

  private called(record: CallRecord): void {
    bump(this.callsByTool, record.tool);
    if (!record.result.ok) bump(this.refusalsByCode, record.result.error?.code ?? 'unknown');
  }

  private changed({ session, change }: SessionChange): void {
    // A character that reconnects is one agent: its newest session's latency is the one shown.
    if (change === 'open' || change === 'resumed') this.agents.set(session.character, session);
    // Kept as a figure, not a session, so a summary does not hold closed sessions alive; an older
    // session closing after a newer one opened does not overwrite it.
    else if (change === 'closed' && this.agents.get(session.character) === session) {
      this.agents.set(session.character, { closedWith: session.stats.decisionLatencyMs });
    }
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function sum(map: Map<string, number>): number {
  let total = 0;
  for (const value of map.values()) total += value;
  return total;
}

/** Keys in code-point order, so two runs list the same counts in the same order. */
function sorted(map: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...map.keys()].sort()) out[key] = map.get(key)!;
  return out;
}

function counts(record: Record<string, number>): string {
  const parts = Object.entries(record).map(([key, value]) => `${key} ${value}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function ms(value: number): string {
  return value.toFixed(1);
}
