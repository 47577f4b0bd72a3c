// `aicc demo --agent pi-daemon:SOCKET`: Cleo driven through a pi-daemon reached straight over its
// Unix socket — here the daemon simulator listening in a temp dir, its model scripted.

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/node/cli/main.js';
import { parseDemoArgs } from '../../../src/node/cli/demoCommand.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { tempDir } from '../gateway/helpers.js';

const block = (call: object): string => `\`\`\`aicc\n${JSON.stringify(call)}\n\`\`\``;

function io() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } } };
}

describe('aicc demo --agent pi-daemon:SOCKET', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  let server: { close(): Promise<void> } | undefined;

  afterEach(async () => {
    await server?.close();
    dir?.remove();
  });

  it('parses the socket path, and refuses an empty one', () => {
    expect(parseDemoArgs(['--agent', 'pi-daemon:/run/pi.sock'])).toMatchObject({ agent: 'cleo', daemonSocket: '/run/pi.sock' });
    expect(parseDemoArgs(['--agent', 'pi-daemon:'])).toBe('--agent expects pi, pi:NAME, pi-daemon:SOCKET or mcp:NAME, got "pi-daemon:"');
  });

  it('lets the daemon drive Cleo among the scripted villagers, then closes its session', async () => {
    dir = tempDir('aicc-demo-daemon-');
    const socket = join(dir.path, 'daemon.sock');
    const sim = new DaemonSimulator({ fallbackReply: block({ tool: 'say', input: { text: 'Good morning, Millbrook!' } }) });
    sim.scriptTurns(block({ tool: 'go', input: { direction: 'south' } }));
    server = await sim.listen(socket);
    const { out, io: cli } = io();
    const code = await main(['demo', '--agent', `pi-daemon:${socket}`, '--ticks', '30', '--provider', 'stub', '--model', 'm1'], cli);
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    expect(out.stdout).toContain('Cleo is driven by a chat agent, through the pilot.');
    expect(out.stdout).toContain('Cleo walks south from the Tavern to the Market.');
    expect(out.stdout).toContain('Cleo says: "Good morning, Millbrook!"');
    const open = sim.received.find((r) => r['operation'] === 'open')!;
    expect(open).toMatchObject({
      sessionId: 'aicc-demo-cleo',
      generation: 1,
      payload: { session: { mode: 'memory' }, model: { provider: 'stub', id: 'm1' }, resources: { tools: 'none' } },
    });
    expect(sim.turns[0]!.prompt).toMatch(/^You are Cleo in Millbrook/);
    expect(sim.received.at(-1)).toMatchObject({ operation: 'close', sessionId: 'aicc-demo-cleo' });
    expect(sim.session('aicc-demo-cleo')).toBeUndefined();
  }, 30_000);

  it('says so when no daemon listens there', async () => {
    dir = tempDir('aicc-demo-daemon-');
    const { out, io: cli } = io();
    const code = await main(['demo', '--agent', `pi-daemon:${join(dir.path, 'none.sock')}`, '--ticks', '5'], cli);
    expect(code).toBe(1);
    const socket = join(dir.path, 'none.sock');
    expect(out.stderr).toBe(`aicc demo: no socket at ${socket}; start the daemon with \`pi-daemon serve --socket ${socket}\`, or name its socket\n`);
  });
});
