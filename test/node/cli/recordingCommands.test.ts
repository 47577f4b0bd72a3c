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
    expect(err).toBe(
      `aicc validate: ${cut}:${line}: cut off mid-line: the file ends inside line ${line}, with no newline; the recording was truncated; \`aicc replay\` replays it up to its last whole line\n`,
    );
  });

  it('calls a recording that stops at a line end, without its end line, invalid', async () => {
    const lines = text.split('\n').slice(0, -3);
    const killed = file('killed.ndjson', `${lines.join('\n')}\n`);
    const { code, err } = await run('validate', killed);
    expect(code).toBe(1);
    expect(err).toBe(
      `aicc validate: ${killed}:${lines.length + 1}: no end line: the recording stops after line ${lines.length}, cut short (a run that was killed, or a truncated copy); \`aicc replay\` replays it up to its last whole line\n`,
    );
  });

  it('replays a recording cut off mid-line up to its last whole line, saying where it stops', async () => {
    // A killed run: its end line and half of the line before it never written.
    const lines = text.split('\n');
    const cutAt = text.lastIndexOf('\n', text.length - 2) - 20;
    const cut = file('cut-replay.ndjson', text.slice(0, cutAt));
    const line = lineCount() - 1;
    const lastTick = (JSON.parse(lines[line - 2]!) as { tick: number }).tick;
    const { code, out, err } = await run('replay', cut);
    expect(err).toBe(
      `aicc replay: ${cut}:${line}: cut off mid-line: the file ends inside line ${line}, with no newline; the recording was truncated; replaying it up to its last whole line (line ${line - 1}, tick ${lastTick})\n`,
    );
    expect(out).toMatch(/replay: every message matched\n$/);
    expect(code).toBe(0);
  });

  it('replays a recording with no end line, and still finds a line that was changed before the cut', async () => {
    const lines = text.split('\n').slice(0, -3);
    const killed = file('killed-replay.ndjson', `${lines.join('\n')}\n`);
    const whole = await run('replay', killed);
    expect(whole.err).toMatch(/no end line: .*; replaying it up to its last whole line \(line \d+, tick \d+\)\n$/);
    expect(whole.code).toBe(0);
    // The same cut recording with one answer the bridge sent edited: the replay must still tell.
    const at = lines.findIndex((line) => line.includes('"dir":"out"') && line.includes('"latency_ms":100'));
    expect(at).toBeGreaterThan(0);
    const edited = [...lines];
    edited[at] = edited[at]!.replace('"latency_ms":100', '"latency_ms":101');
    const changed = await run('replay', file('edited-replay.ndjson', `${edited.join('\n')}\n`));
    expect(changed.out).toMatch(/replay: MISMATCH\n$/);
    expect(changed.code).toBe(1);
  });

  it('refuses a file cut inside its header line: there is nothing to replay', async () => {
    const { code, err } = await run('replay', file('header-cut.ndjson', text.slice(0, 30)));
    expect(code).toBe(1);
    expect(err).toMatch(/:1: cut off mid-line: the file ends inside its header line; nothing to read\n$/);
  });
});
