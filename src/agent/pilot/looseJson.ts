// JSON as models actually write it: single quotes, trailing commas, bare keys, Python's True/False/
// None. Strict JSON is tried first; only text that fails is repaired, token by token, so a string
// containing a comma or a quote is never touched.

export type LooseSlip = 'single_quotes' | 'trailing_comma' | 'bare_keys' | 'python_literals';

export type LooseResult = { ok: true; value: unknown; slips: LooseSlip[] } | { ok: false; reason: string };

const PYTHON: Readonly<Record<string, string>> = { True: 'true', False: 'false', None: 'null' };

export function parseLoose(text: string): LooseResult {
  try {
    return { ok: true, value: JSON.parse(text), slips: [] };
  } catch {
    // Repaired below.
  }
  const { repaired, slips } = repair(text);
  try {
    return { ok: true, value: JSON.parse(repaired), slips: [...slips] };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/** V8's message without the position, which names a place in the repaired text, not the model's. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .replace(/\s*(?:in JSON )?at position \d+.*$/s, '')
      .replace(/^JSON\.parse: /, '')
      .trim() || 'not valid JSON'
  );
}

function repair(text: string): { repaired: string; slips: Set<LooseSlip> } {
  const slips = new Set<LooseSlip>();
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i, '"');
      out += text.slice(i, end);
      i = end;
    } else if (c === "'") {
      const end = stringEnd(text, i, "'");
      out += JSON.stringify(unescapeSingle(text.slice(i + 1, end - 1)));
      slips.add('single_quotes');
      i = end;
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1))) {
      slips.add('trailing_comma');
      i++;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))![0];
      const after = text.slice(i + word.length);
      if (/^\s*:/.test(after) && !['true', 'false', 'null'].includes(word)) {
        out += JSON.stringify(word);
        slips.add('bare_keys');
      } else if (PYTHON[word] !== undefined) {
        out += PYTHON[word];
        slips.add('python_literals');
      } else out += word;
      i += word.length;
    } else {
      out += c;
      i++;
    }
  }
  return { repaired: out, slips };
}

/** Index just past the string opening at `start` (or the text's end when it never closes). */
export function stringEnd(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return text.length;
}

/** The content of a single-quoted string as plain text: `\'` is a quote, other escapes as in JSON. */
function unescapeSingle(body: string): string {
  let asDouble = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      const next = body[++i]!;
      asDouble += next === "'" ? "'" : c + next;
    } else if (c === '"') asDouble += '\\"';
    else if (c === '\n') asDouble += '\\n';
    else asDouble += c;
  }
  try {
    return JSON.parse(`"${asDouble}"`) as string;
  } catch {
    return body;
  }
}
