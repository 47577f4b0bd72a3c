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
    it('tells the story and the summary', async () => {
      const { code, out } = await run('demo');
      expect(code).toBe(0);
      expect(out).toContain('Wren wakes in the Walled Garden');
      expect(out).toContain('summary: 4 apples gathered');
      expect(out).toContain('refusals by code: invalid_input 1');
    });

    it('is the same story every time', async () => {
      const first = JSON.parse((await run('demo', '--json')).out);
      const second = JSON.parse((await run('demo', '--json')).out);
      expect(second).toEqual(first);
      expect(first.summary.gathered).toBe(4);
    });

    it('refuses an unknown option with exit code 2', async () => {
      const { code, err } = await run('demo', '--fast');
      expect(code).toBe(2);
      expect(err).toContain('unknown option "--fast"');
    });
  });
});
