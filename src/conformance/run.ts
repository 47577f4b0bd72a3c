// Runs the checks of levels 1–3 against a bridge and reports each: passed, failed (with what was
// expected, and the last messages sent and received), or not applicable to a bridge that does not
// lend what the check needs.

import type { BridgeFactory, ConformanceBridge } from './bridge.js';
import { CheckContext, CheckFailure, type Check, type Level, type Need } from './check.js';
import { CALL_CHECKS } from './callChecks.js';
import { TIME_CHECKS } from './timeChecks.js';
import { WIRE_CHECKS } from './wireChecks.js';
import type { Exchange } from './agent.js';

/** Every check, level by level. */
export const CHECKS: readonly Check[] = [...WIRE_CHECKS, ...CALL_CHECKS, ...TIME_CHECKS];

export interface CheckResult {
  id: string;
  level: Level;
  title: string;
  outcome: 'passed' | 'failed' | 'n/a';
  /** Why it failed, or what it needed. */
  detail?: string;
  /** A failure's last exchanges. */
  transcript?: Exchange[];
  ms: number;
}

export interface ConformanceReport {
  bridge: string;
  results: CheckResult[];
  passed: boolean;
}

export interface ConformanceOptions {
  /** Levels to run; default all three. */
  levels?: readonly Level[];
  /** Only the checks whose id includes this. */
  only?: string;
  /** How long an expected answer may take, in ms of wall time. Default 2,000. */
  waitMs?: number;
  /** Told of each result as it comes. */
  onResult?: (result: CheckResult) => void;
}

/**
 * Runs the suite against the bridge `target` builds. One bridge serves every check (each check
 * registers its own tools and opens its own sessions); `L3.same_seed` builds two more.
 */
export async function runConformance(target: BridgeFactory, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const bridge = await target();
  const levels = options.levels ?? [1, 2, 3];
  const results: CheckResult[] = [];
  try {
    for (const [index, check] of CHECKS.entries()) {
      if (!levels.includes(check.level) || (options.only !== undefined && !check.id.includes(options.only))) continue;
      const result = await runCheck(bridge, target, check, `k${index}`, options.waitMs ?? 2000);
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await bridge.close?.();
  }
  return { bridge: bridge.name, results, passed: results.every((r) => r.outcome !== 'failed') };
}

async function runCheck(bridge: ConformanceBridge, factory: BridgeFactory, check: Check, prefix: string, waitMs: number): Promise<CheckResult> {
  const base = { id: check.id, level: check.level, title: check.title };
  const missing = (check.needs ?? []).filter((need) => !offers(bridge, need));
  if (missing.length > 0) return { ...base, outcome: 'n/a', detail: `needs ${missing.join(', ')}`, ms: 0 };
  const context = new CheckContext(bridge, factory, prefix, waitMs);
  const started = Date.now();
  try {
    await check.run(context);
    const invalid = context.invalidFrames();
    if (invalid.length > 0) throw new CheckFailure(`the bridge sent ${invalid.length} invalid frame(s): ${invalid[0]}`);
    return { ...base, outcome: 'passed', ms: Date.now() - started };
  } catch (error) {
    const detail = error instanceof CheckFailure ? error.message : `the check itself failed: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, outcome: 'failed', detail, transcript: context.transcript(), ms: Date.now() - started };
  } finally {
    context.dispose();
  }
}

function offers(bridge: ConformanceBridge, need: Need): boolean {
  if (need === 'factory') return true;
  return typeof bridge[need] === 'function';
}

/** The report as text: a table per level, then each failure with its transcript. */
export function formatConformance(report: ConformanceReport): string {
  const lines: string[] = [`aicc/0.1 conformance: ${report.bridge}`];
  for (const level of [1, 2, 3] as const) {
    const rows = report.results.filter((r) => r.level === level);
    if (rows.length === 0) continue;
    const count = (outcome: CheckResult['outcome']) => rows.filter((r) => r.outcome === outcome).length;
    lines.push(
      '',
      `L${level} ${['', 'wire and manifest', 'calls', 'time and continuity'][level]}: ${count('passed')} passed, ${count('failed')} failed, ${count('n/a')} n/a`,
    );
    for (const row of rows)
      lines.push(
        `  ${row.outcome === 'passed' ? 'pass' : row.outcome === 'failed' ? 'FAIL' : 'n/a '}  ${row.id.padEnd(26)} ${row.title}${row.outcome === 'n/a' ? ` (${row.detail})` : ''}`,
      );
  }
  const failed = report.results.filter((r) => r.outcome === 'failed');
  for (const row of failed) {
    lines.push('', `${row.id} failed: ${row.detail}`);
    for (const exchange of row.transcript ?? []) lines.push(`    ${exchange.dir === 'sent' ? '→' : '←'} ${exchange.text}`);
  }
  lines.push(
    '',
    report.passed ? 'conformant: every applicable check passed' : `not conformant: ${failed.length} check(s) failed; the first is ${failed[0]!.id}`,
  );
  return lines.join('\n');
}
