// Close codes in the gateway targets: which ones a page (or the log) may show, and the closes ws
// makes for a broken frame, counted twice (as the pages saw them, as the log named them) so that
// the run can check the log names the code each page got.

import type { FuzzContext } from '../harness/context.js';
import { CLOSE } from '../../../src/node/gateway/access.js';

/**
 * Close codes a page (or the log) may show: the gateway's own (CLOSE, listed in `aicc gateway
 * --help`) and the standard ones ws and the peers use — 1001 going away, 1002 protocol error,
 * 1005 no status (a page that closes without a code, in the log), 1006 dropped, 1007 invalid
 * UTF-8, 1008 policy (ws: too many fragments), 1011 internal error.
 */
export const CLOSE_CODES: ReadonlySet<string> = new Set([...Object.values(CLOSE), 1001, 1002, 1005, 1006, 1007, 1008, 1011].map(String));

/**
 * Closes that ws makes for a broken frame (1002 protocol error, 1007 invalid UTF-8, 1009 too big),
 * counted as the pages saw them and as the log named them: the log must name the code the page
 * got. One run per worker, so one count per run.
 */
const WS_CLOSES = [1002, 1007, 1009];
const closesSeen = new Map<number, number>();
const closesLogged = new Map<number, number>();
const count = (map: Map<number, number>, code: number): void => void map.set(code, (map.get(code) ?? 0) + 1);

/** A close a page saw. */
export const closeSeen = (code: number): void => count(closesSeen, code);

/** The gateway's log as the fuzz takes it: every line is checked for secrets and its close code. */
export function checkedLog(context: FuzzContext, name: string): (line: string) => void {
  return (line) => {
    context.seen(line, `${name}: a log line`);
    const [, how, code] = /(refused|closed) \((\d+)\)/.exec(line) ?? [];
    if (code !== undefined) context.code(code, CLOSE_CODES, `${name}: a close code in the log`);
    if (how === 'closed') count(closesLogged, Number(code));
  };
}

/** At the end of a run: the log named each ws close as often as pages saw it. */
export function checkCloses(context: FuzzContext, name: string): void {
  for (const code of WS_CLOSES) {
    const seen = closesSeen.get(code) ?? 0;
    const logged = closesLogged.get(code) ?? 0;
    if (seen !== logged) context.problem(`${name}: pages saw ${seen} closes with ${code}, the log names ${logged}`);
  }
}
