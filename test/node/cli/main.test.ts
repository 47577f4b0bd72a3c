import { describe, expect, it } from 'vitest';
import { main } from '../../../src/node/cli/main.js';
import { userMessage } from '../../../src/node/cli/userMessage.js';

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
      [['--model', 'm'], '--model goes with --agent pi or --agent pi-daemon:SOCKET'],
      [['--agent', 'pi-daemon:/run/pi.sock', '--pi-bin', 'pi'], '--pi-bin is for --agent pi; a pi-daemon runs its own pi'],
      [
        ['--agent', 'pi-daemon:/run/pi.sock', '--model', 'm'],
        "with --agent pi-daemon:SOCKET, give --provider and --model together, or neither for the daemon's default model",
      ],
      [['--agent', 'mcp:zed'], '--agent: no villager called "zed"'],
      [['--agent', 'mcp', '--json'], '--agent mcp speaks MCP on standard output; --json does not go with it'],
      [['--agent', 'mcp', '--play'], '--agent mcp speaks MCP on standard input and output; --play needs them too'],
      [['--agent', 'mcp:ada', '--agent', 'pi'], '--agent mcp serves one villager; it does not go with a second --agent'],
    ])('refuses %j in one line with exit code 2', async (args, message) => {
      const { code, err } = await run('demo', ...args);
      expect(code).toBe(2);
      expect(err).toContain(message);
      expect(err.trim().split('\n')).toHaveLength(1);
    });
  });

  describe('when a command fails', () => {
    it('prints what failed and what to fix, not the function that noticed it', () => {
      expect(userMessage(new Error('PiProcess.start: pi could not be started (ENOENT); check --pi-bin'))).toBe(
        'pi could not be started (ENOENT); check --pi-bin',
      );
      expect(userMessage(new Error('startGateway: connectSocketLink: cannot connect to /x.sock (ENOENT)'))).toBe('cannot connect to /x.sock (ENOENT)');
      expect(userMessage('replay: the world must run on a ManualClock')).toBe('the world must run on a ManualClock');
    });

    it('keeps messages that start with words, a line number or a command', () => {
      for (const message of [
        'pi exited (code 1); pi said: no model',
        'line 5: not JSON',
        'demo:web: the port is taken',
        '"localhost" is not an origin; write it as http://localhost',
      ]) {
        expect(userMessage(new Error(message))).toBe(message);
      }
    });

    it('does so for every command, where the command line prints a failure', async () => {
      const { code, err } = await run('demo', '--agent', 'pi-daemon:/nonexistent/pi.sock');
      expect(code).toBe(1);
      expect(err).toBe(
        'aicc demo: no socket at /nonexistent/pi.sock; start the daemon with `pi-daemon serve --socket /nonexistent/pi.sock`, or name its socket\n',
      );
    });
  });
});
