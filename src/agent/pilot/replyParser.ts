// Reads the tool calls out of a model's reply. The canonical form is a fenced ```aicc block with one
// JSON object per line, {"tool": "go", "input": {"direction": "north"}}. Models slip, and a slip the
// intent survives is forgiven (another fence, no fence, single quotes, trailing commas, the
// {"name", "arguments"} shape, an array of calls, calls joined by ";"); what cannot be read is
// named by line, so the pilot can tell the model exactly what to fix.

import type { JsonObject } from '../../protocol/messages.js';
import { clip } from '../../base/clip.js';
import { callsIn, type ShapeSlip } from './callShape.js';
import { parseLoose, stringEnd, type LooseSlip } from './looseJson.js';

export type Slip = LooseSlip | ShapeSlip | 'json_fence' | 'other_fence' | 'no_fence' | 'unclosed_fence' | 'semicolons';

export interface ParsedCall {
  tool: string;
  input: JsonObject;
  /** Line of the block (or of the reply, when there is no block) where the call starts. */
  line: number;
}

export interface Unreadable {
  line: number;
  /** The start of what could not be read. */
  text: string;
  reason: string;
  /** Set when the reply had several blocks: which one, from 1. */
  block?: number;
}

export interface ParsedReply {
  calls: ParsedCall[];
  unreadable: Unreadable[];
  /** An ```aicc block with nothing in it: the model chose to wait for news. */
  waits: boolean;
  /** The slips forgiven, each once. */
  slips: Slip[];
  source: 'aicc' | 'fence' | 'text' | 'none';
}

export interface ParseOptions {
  /** Tool ids, so that `{"go": {"direction": "north"}}` reads as a call of `go`. */
  knownTools?: ReadonlySet<string>;
}

interface Block {
  label: string;
  body: string;
  closed: boolean;
}

/** Replies are read up to this many characters: a call list is short, and parsing stays cheap. */
export const MAX_REPLY_CHARS = 32_000;
/** A bracket not closed within this many characters starts no call (and costs no more scanning). */
const MAX_SEGMENT_CHARS = 8_000;
/**
 * Characters the bracket matcher may step over for one reply. A reply full of unclosed brackets
 * would otherwise be rescanned from each one; past this, the rest of the reply is not read.
 */
const SCAN_BUDGET = 1_000_000;

export function parseReply(reply: string | null, options: ParseOptions = {}): ParsedReply {
  const result: ParsedReply = { calls: [], unreadable: [], waits: false, slips: [], source: 'none' };
  const slips = new Set<Slip>();
  const text = (reply ?? '').slice(0, MAX_REPLY_CHARS);
  const blocks = fencedBlocks(text);
  const canonical = blocks.filter((block) => block.label === 'aicc');
  const jsonish = blocks.filter((block) => block.label !== 'aicc' && /[{[]/.test(block.body));
  const chosen = canonical.length > 0 ? canonical : jsonish;
  if (chosen.length > 0) {
    result.source = canonical.length > 0 ? 'aicc' : 'fence';
    if (canonical.length === 0) for (const block of chosen) slips.add(/^json/.test(block.label) ? 'json_fence' : 'other_fence');
    chosen.forEach((block, index) => {
      if (!block.closed) slips.add('unclosed_fence');
      const before = result.unreadable.length;
      if (!readLines(block.body, result, slips, options)) readSegments(block.body, 'block', result, slips, options);
      if (chosen.length > 1) for (const problem of result.unreadable.slice(before)) problem.block = index + 1;
    });
    result.waits = canonical.length > 0 && canonical.every((block) => block.body.trim() === '');
  } else if (text.trim() !== '') {
    readSegments(text, 'text', result, slips, options);
    if (result.calls.length > 0 || result.unreadable.length > 0) {
      result.source = 'text';
      slips.add('no_fence');
    }
  }
  result.slips = [...slips];
  return result;
}

/** Whether the reply can be acted on: it had calls, or it asked to wait. */
export function isUsable(parsed: ParsedReply): boolean {
  return parsed.calls.length > 0 || parsed.waits;
}

/** What the model must hear about its reply: each unreadable line, and a reply with nothing to act on. */
export function replyFeedback(parsed: ParsedReply, reply: string | null): string[] {
  const notes = parsed.unreadable.map(describeUnreadable);
  if (reply !== null && reply.length > MAX_REPLY_CHARS) notes.push(`Your reply was cut at ${MAX_REPLY_CHARS} characters; keep replies short.`);
  if (isUsable(parsed)) return notes;
  if (reply === null || reply.trim() === '') return [...notes, 'Your reply was empty. Reply with an aicc block of calls, or an empty aicc block to wait.'];
  return [...notes, 'I found no calls in your reply. Put them in an aicc block, one {"tool": "<id>", "input": {…}} per line.'];
}

/** What to tell the model about one thing that could not be read. */
export function describeUnreadable(problem: Unreadable): string {
  const where = problem.block === undefined ? `line ${problem.line}` : `block ${problem.block}, line ${problem.line}`;
  return `I could not read ${where}: ${clip(problem.text, 80)} (${problem.reason})`;
}

/** Every ``` fence, with its label lower-cased; a fence left open runs to the end of the reply. */
function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let at = text.indexOf('```');
  while (at >= 0) {
    const lineEnd = text.indexOf('\n', at);
    if (lineEnd < 0) {
      // A fence on the last line: an inline ```{"tool":…}``` or an opening with nothing after it.
      const label = /^```([a-z0-9_+-]*)\s*/i.exec(text.slice(at))!;
      const from = at + label[0].length;
      const close = closingFence(text, from);
      blocks.push({ label: (label[1] ?? '').toLowerCase(), body: text.slice(from, close < 0 ? text.length : close).trimEnd(), closed: close >= 0 });
      break;
    }
    const label = text
      .slice(at + 3, lineEnd)
      .trim()
      .split(/\s+/)[0]!
      .toLowerCase();
    const close = closingFence(text, lineEnd + 1);
    blocks.push({ label, body: text.slice(lineEnd + 1, close < 0 ? text.length : close), closed: close >= 0 });
    if (close < 0) break;
    at = text.indexOf('```', close + 3);
  }
  return blocks;
}

/**
 * Where a block that starts at `from` closes: the first ``` outside a double-quoted string, or -1.
 * A model may close on the line of its last call (`{"tool":"look"}```), so the fence is not looked
 * for at line starts only; a ``` inside a call's text (`"say": "use ``` for code"`) does not close
 * it. A string ends at its line's end, as JSON's do, so a stray quote in prose hides no fence past it.
 */
function closingFence(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === NEWLINE) inString = false;
    else if (inString) {
      if (code === QUOTE) inString = false;
      else if (code === BACKSLASH && text.charCodeAt(i + 1) !== NEWLINE) i++;
    } else if (code === QUOTE) inString = true;
    else if (code === BACKTICK && text.startsWith('```', i)) return i;
  }
  return -1;
}

const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const BACKTICK = 96;

/**
 * The common block — one JSON value per line — split by JSON.parse alone, reading each line as the
 * bracket scanner would read it; false (and nothing read) for anything else, which the scanner takes.
 * A reply is read once per decision, so its code never runs hot: native parsing is what keeps it fast.
 */
function readLines(body: string, result: ParsedReply, slips: Set<Slip>, options: ParseOptions): boolean {
  const values: Array<{ line: number; text: string }> = [];
  const lines = body.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!.trim();
    if (text === '') continue;
    if ((text[0] !== '{' && text[0] !== '[') || text.length > MAX_SEGMENT_CHARS) return false;
    try {
      JSON.parse(text);
    } catch {
      return false;
    }
    values.push({ line: index + 1, text });
  }
  for (const { line, text } of values) readValue(text, line, 'block', result, slips, options);
  return true;
}

/**
 * Splits `body` into top-level JSON values and reads each as calls. In a block, anything else is
 * reported; in free text (no fence), prose is skipped and only call-like values count.
 */
function readSegments(body: string, mode: 'block' | 'text', result: ParsedReply, slips: Set<Slip>, options: ParseOptions): void {
  const lineAt = lineIndex(body);
  const budget = { left: SCAN_BUDGET };
  let i = 0;
  let lastSegmentLine = -1;
  while (i < body.length) {
    const c = body[i]!;
    if (/\s|,/.test(c)) {
      i++;
      continue;
    }
    if (c === ';') {
      if (lineAt(i) === lastSegmentLine) slips.add('semicolons');
      i++;
      continue;
    }
    const line = lineAt(i);
    if (c === '{' || c === '[') {
      const end = matchingEnd(body, i, budget);
      if (budget.left <= 0) {
        result.unreadable.push({ line, text: firstLine(body.slice(i)), reason: 'too many unclosed brackets; I stopped reading here' });
        return;
      }
      lastSegmentLine = line;
      if (end === undefined) {
        // Unbalanced: give up on this line only, so the calls on the lines after it still count.
        const eol = body.indexOf('\n', i);
        const rest = body.slice(i, eol < 0 ? body.length : eol);
        // In free text an unbalanced bracket is prose ("[I don't know"): skip it and read on.
        if (mode === 'block')
          result.unreadable.push({ line, text: rest.trim(), reason: `its brackets do not balance; it ends before its closing ${c === '{' ? '}' : ']'}` });
        i = mode === 'block' ? (eol < 0 ? body.length : eol) : i + 1;
        continue;
      }
      const segment = body.slice(i, end);
      i = end;
      readValue(segment, line, mode, result, slips, options);
      continue;
    }
    // Not JSON: a comment, prose, or a call written some other way.
    const eol = body.indexOf('\n', i);
    const stray = body.slice(i, eol < 0 ? body.length : eol);
    const next = stray.search(/[{[]/);
    if (mode === 'block' && !/^(\/\/|#)/.test(stray)) {
      result.unreadable.push({
        line,
        text: firstLine(next > 0 ? stray.slice(0, next) : stray),
        reason: 'not a JSON object; write {"tool": "<id>", "input": {…}}',
      });
    }
    i = next > 0 && !/^(\/\/|#)/.test(stray) ? i + next : eol < 0 ? body.length : eol;
  }
}

function readValue(segment: string, line: number, mode: 'block' | 'text', result: ParsedReply, slips: Set<Slip>, options: ParseOptions): void {
  const parsed = parseLoose(segment);
  if (!parsed.ok) {
    if (mode === 'block' || mentionsTool(segment)) result.unreadable.push({ line, text: firstLine(segment), reason: parsed.reason });
    return;
  }
  const { entries, slips: containerSlips } = callsIn(parsed.value, options.knownTools);
  // In free text a JSON value that is no call at all is just part of the prose.
  if (mode === 'text' && !entries.some((entry) => 'call' in entry)) return;
  for (const slip of [...parsed.slips, ...containerSlips]) slips.add(slip);
  for (const entry of entries) {
    if ('call' in entry) {
      result.calls.push({ ...entry.call, line });
      for (const slip of entry.slips) slips.add(slip);
    } else result.unreadable.push({ line, text: firstLine(segment), reason: entry.problem });
  }
}

/** Index just past the bracket that closes the one at `start`, skipping strings of either quote. */
function matchingEnd(text: string, start: number, budget: { left: number }): number | undefined {
  const stack: string[] = [];
  const limit = Math.min(text.length, start + MAX_SEGMENT_CHARS);
  let i = start;
  while (i < limit) {
    if (--budget.left <= 0) return undefined;
    const c = text[i]!;
    if (c === '"' || c === "'") {
      i = stringEnd(text, i, c);
      continue;
    }
    if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return undefined;
      if (stack.length === 0) return i + 1;
    }
    i++;
  }
  return undefined;
}

/** A function from an index in `text` to its line number, from 1. */
function lineIndex(text: string): (index: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.trim();
}

function mentionsTool(text: string): boolean {
  return /["']?(tool|name)["']?\s*:/.test(text);
}
