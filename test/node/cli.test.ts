import { describe, expect, it } from 'vitest';
import { main } from '../../src/node/cliMain.js';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

describe('aicc', () => {
  it('prints its help with --help and exits 0', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    expect(out).toContain('compile-schemas');
    expect(out).toContain('demo');
  });

  it('prints the usage and exits 2 without a command', async () => {
    expect((await run()).code).toBe(2);
  });

  it('names an unknown command in one line and exits 2', async () => {
    const { code, err } = await run('fly');
    expect(code).toBe(2);
    expect(err).toBe('aicc: unknown command "fly"; run `aicc --help` for the list\n');
  });

  it('prints the package version', async () => {
    const { code, out } = await run('--version');
    expect(code).toBe(0);
    expect(out).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  describe('demo', () => {
    it('tells the story of the village and the summary', async () => {
      const { code, out } = await run('demo', '--ticks', '300');
      expect(code).toBe(0);
      expect(out).toMatch(/^\[0000\] Morning in Millbrook\./);
      expect(out).toContain('Bram gives the');
      expect(out).toMatch(/\ncalls: \d+ \(/);
      expect(out).toContain('refusals:');
      expect(out).toContain('decision latency');
    });

    it('is the same story every time for a seed, and another story for another seed', async () => {
      const first = JSON.parse((await run('demo', '--json', '--seed', '5')).out);
      const second = JSON.parse((await run('demo', '--json', '--seed', '5')).out);
      const other = JSON.parse((await run('demo', '--json', '--seed', '6')).out);
      expect(second.story).toEqual(first.story);
      expect(second.summary).toEqual(first.summary);
      expect(other.story).not.toEqual(first.story);
    });

    it.each([
      [['--fast'], 'unknown option "--fast"'],
      [['--seed', 'abc'], '--seed expects a whole number, got "abc"'],
      [['--ticks', '0'], '--ticks expects a whole number above 0, got "0"'],
      [['--record'], '--record expects a file name'],
      [['--play', 'zed'], '--play: no villager called "zed"'],
    ])('refuses %j in one line with exit code 2', async (args, message) => {
      const { code, err } = await run('demo', ...args);
      expect(code).toBe(2);
      expect(err).toContain(message);
      expect(err.trim().split('\n')).toHaveLength(1);
    });
  });
});
