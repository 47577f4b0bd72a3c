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
  /** No check failed. Not a verdict on its own: checks the bridge could not lend what they need are n/a. */
  passed: boolean;
  /** Every check of the levels run ran (none n/a): only then is a pass a verdict for those levels. */
  complete: boolean;
  /**
   * `conformant`: every check of the levels run passed. `not conformant`: a check failed.
   * `incomplete`: none failed, but some could not run (n/a) — no verdict for the levels they belong to.
   */
  verdict: 'conformant' | 'not conformant' | 'incomplete';
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
  const passed = results.every((r) => r.outcome !== 'failed');
  const complete = results.every((r) => r.outcome !== 'n/a');
  return { bridge: bridge.name, results, passed, complete, verdict: !passed ? 'not conformant' : complete ? 'conformant' : 'incomplete' };
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
  lines.push('', verdictLine(report, failed));
  return lines.join('\n');
}

/** The last line: a verdict for a level only when every one of its checks ran. */
function verdictLine(report: ConformanceReport, failed: readonly CheckResult[]): string {
  if (failed.length > 0) return `not conformant: ${failed.length} check(s) failed; the first is ${failed[0]!.id}`;
  const levels = [...new Set(report.results.map((r) => r.level))];
  const named = (list: readonly Level[]): string => list.map((level) => `L${level}`).join(', ');
  const open = levels.filter((level) => report.results.some((r) => r.level === level && r.outcome === 'n/a'));
  const whole = levels.filter((level) => !open.includes(level));
  if (open.length === 0) return `conformant at ${named(whole)}: every check passed`;
  const skipped = report.results.filter((r) => r.outcome === 'n/a').length;
  return (
    `${whole.length > 0 ? `conformant at ${named(whole)}; ` : ''}no verdict for ${named(open)}: no check failed, but ${skipped} of ${report.results.length} ` +
    'could not run (n/a) for want of what this bridge does not lend (a module target exporting a capsuleBridge lends it all)'
  );
}
