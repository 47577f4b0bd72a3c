// `aicc demo --agent pi-daemon:SOCKET`: Cleo driven through a pi-daemon reached straight over its
// Unix socket — here the daemon simulator listening in a temp dir, its model scripted.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/node/cli/main.js';
import { demoCommand, parseDemoArgs } from '../../../src/node/cli/demoCommand.js';
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
    expect(parseDemoArgs(['--agent', 'pi-daemon:'])).toBe('--agent expects pi, pi:NAME, pi-daemon:SOCKET, model:PROVIDER/MODEL or mcp:NAME, got "pi-daemon:"');
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

  it('survives a daemon restart mid-decision: the cut-off decision is recorded as failed, and the next generation goes on deciding', async () => {
    dir = tempDir('aicc-demo-daemon-');
    const socket = join(dir.path, 'daemon.sock');
    const record = join(dir.path, 'day.ndjson');
    const sim = new DaemonSimulator({ fallbackReply: block({ tool: 'say', input: { text: 'Still here.' } }) });
    // The briefing's turn walks; the next one is held, and the host restarts while it runs.
    sim.scriptTurns(block({ tool: 'go', input: { direction: 'south' } }), { text: block({ tool: 'look', input: {} }), hold: true });
    server = await sim.listen(socket);
    const { out, io: cli } = io();
    const day = demoCommand(['--agent', `pi-daemon:${socket}`, '--ticks', '60', '--record', record], cli, {
      signal: new AbortController().signal,
      daemonReconnect: { baseDelayMs: 20 },
    });
    await vi.waitFor(() => expect(sim.running('aicc-demo-cleo')).toBe(true), { timeout: 5_000, interval: 10 });
    sim.restart();
    expect(await day).toBe(0);
    expect(out.stderr).not.toMatch(/gone/);
    expect(out.stdout).toContain('Cleo walks south from the Tavern to the Market.');
    expect(out.stdout).toContain('Cleo says: "Still here."');
    expect(out.stdout).not.toContain('chat agent: stopped');
    // The memory session died with the host: the next generation was opened and briefed again.
    const opens = sim.received.filter((r) => r['operation'] === 'open').map((r) => r['generation']);
    expect(opens).toEqual([1, 2]);
    expect(sim.turns.filter((turn) => turn.prompt.includes('You are Cleo in Millbrook'))).toHaveLength(2);
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const ends = lines.filter((line) => 'decision' in line && line['character'] === 'cleo').map((line) => (line['decision'] as { ended: string }).ended);
    expect(ends[0]).toBe('replied');
    expect(ends[1]).toBe('reply_failed');
    expect(ends.slice(2)).toContain('replied');
    // Cleo's calls: each answered exactly once, and the held turn's (look) never ran — its reply went with the host.
    const cleo = lines
      .filter((line) => line['character'] === 'cleo' && line['message'] !== undefined)
      .map((line) => line['message'] as Record<string, unknown>);
    const calls = cleo.filter((m) => m['type'] === 'tool_call');
    const results = cleo.filter((m) => m['type'] === 'tool_result').map((m) => m['call_id']);
    expect(calls.map((call) => call['tool'])).not.toContain('look');
    expect(calls.map((call) => call['tool'])).toContain('say');
    expect(results.sort()).toEqual(calls.map((call) => call['call_id']).sort());
  }, 30_000);

  it('says on stderr and in the summary when the daemon stays away, and exits 1', async () => {
    dir = tempDir('aicc-demo-daemon-');
    const socket = join(dir.path, 'daemon.sock');
    const sim = new DaemonSimulator({ fallbackReply: block({ tool: 'say', input: { text: 'Hello?' } }) });
    sim.scriptTurns({ text: block({ tool: 'look', input: {} }), hold: true });
    server = await sim.listen(socket);
    const { out, io: cli } = io();
    const day = demoCommand(['--agent', `pi-daemon:${socket}`, '--ticks', '30'], cli, {
      signal: new AbortController().signal,
      daemonReconnect: { baseDelayMs: 10, maxAttempts: 2 },
    });
    await vi.waitFor(() => expect(sim.running('aicc-demo-cleo')).toBe(true), { timeout: 5_000, interval: 10 });
    // The daemon dies and does not come back: no one listens on the socket any more.
    await server.close();
    server = undefined;
    sim.restart();
    expect(await day).toBe(1);
    expect(out.stderr).toMatch(
      /^aicc demo: the agent driving cleo is gone for good \(DaemonClient: gave up reconnecting after 2 attempts .*\); it idles for the rest of the day\n$/,
    );
    expect(out.stdout).toMatch(
      /\nchat agent: stopped at tick \d+, its villager idle for the rest of the day \(the agent is gone: DaemonClient: gave up reconnecting/,
    );
  }, 30_000);
});
