// `aicc validate` and `aicc replay` on files as a user has them: whole, cut off mid-line (a copy
// that stopped), or cut at a line's end (a run killed before it wrote its end line).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/node/cli/main.js';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

describe('aicc validate', () => {
  let dir: string;
  let whole: string;
  let text: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aicc-validate-'));
    whole = join(dir, 'day.ndjson');
    expect((await run('demo', '--seed', '4', '--ticks', '200', '--record', whole)).code).toBe(0);
    text = readFileSync(whole, 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const lineCount = (): number => text.split('\n').length - 1;

  it('calls a whole recording valid, with the ticks it ran', async () => {
    const { code, out, err } = await run('validate', whole);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^${whole}: valid — village, seed 4, \\d+ of 200 ticks, \\d+ messages of 3 characters\\n$`));
  });

  it('calls a recording cut off mid-line invalid, naming the line', async () => {
    // 20 bytes before the newline that ends the last message, the line before the end line.
    const cut = file('cut.ndjson', text.slice(0, text.lastIndexOf('\n', text.length - 2) - 20));
    const line = lineCount() - 1;
    const { code, out, err } = await run('validate', cut);
    expect(out).toBe('');
    expect(code).toBe(1);
    expect(err).toBe(`aicc validate: ${cut}:${line}: cut off mid-line: the file ends inside line ${line}, with no newline; the recording was truncated\n`);
  });

  it('calls a recording that stops at a line end, without its end line, invalid', async () => {
    const lines = text.split('\n').slice(0, -3);
    const killed = file('killed.ndjson', `${lines.join('\n')}\n`);
    const { code, err } = await run('validate', killed);
    expect(code).toBe(1);
    expect(err).toBe(
      `aicc validate: ${killed}:${lines.length + 1}: no end line: the recording stops after line ${lines.length}, cut short (a run that was killed, or a truncated copy)\n`,
    );
  });

  it('and replay refuses the same recording, before running anything', async () => {
    const cut = file('cut-replay.ndjson', text.slice(0, text.length - 40));
    const { code, out, err } = await run('replay', cut);
    expect(out).toBe('');
    expect(code).toBe(1);
    expect(err).toMatch(/^aicc replay: .*cut off mid-line/);
  });
});
