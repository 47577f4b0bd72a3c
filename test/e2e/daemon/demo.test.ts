// `aicc demo --agent pi-daemon:SOCKET` against the real pi-daemon, run as a user runs it: the built
// command in a process of its own. A run killed mid-way (as Ctrl-C or a crash leaves it), then a
// new run, then a daemon restart and another run: each opens a fresh session and carries on.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { aicc } from '../../agent/pilot/fakeBackend.js';
import { startStubModel, userTexts, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

const CLI = new URL('../../../dist/cli.js', import.meta.url).pathname;

describeWithRealDaemon('aicc demo --agent pi-daemon:SOCKET against the real daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: aicc({ tool: 'look' }) });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
  }, 240_000);
  afterAll(async () => {
    await daemon?.dispose();
    await stub?.close();
  });

  /** The demo in a process of its own; resolves with its exit and output. */
  function demo(ticks: number): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
    const child = spawn(process.execPath, [CLI, 'demo', '--agent', `pi-daemon:${daemon.socket}`, '--cwd', daemon.workDir, '--ticks', String(ticks)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.once('exit', (code) => resolve({ code, stdout, stderr })),
    );
    return { child, done };
  }

  /** The briefings in the conversation the model got with request `at`. */
  const briefings = (at: number): number => userTexts(stub.requests[at]!).filter((text) => text.startsWith('You are Cleo')).length;

  it('after a run killed mid-way, and after a daemon restart, a new run opens a fresh session and carries on', async () => {
    // A long run, killed once the model has been asked twice (a decision made, the next under way).
    const killed = demo(100_000);
    await until(() => stub.requests.length >= 2);
    killed.child.kill('SIGKILL');
    await killed.done;

    const first = stub.requests.length;
    const again = await demo(40).done;
    expect(again.stderr).not.toMatch(/Error|refused/);
    expect(again.code).toBe(0);
    expect(stub.requests.length).toBeGreaterThan(first);
    // One briefing, and none of the killed run's conversation.
    expect(briefings(first)).toBe(1);
    expect(userTexts(stub.requests[first]!)).toHaveLength(1);

    await daemon.restart();
    const afterRestart = stub.requests.length;
    const third = await demo(40).done;
    expect(third.code).toBe(0);
    expect(stub.requests.length).toBeGreaterThan(afterRestart);
    expect(briefings(afterRestart)).toBe(1);
  }, 120_000);
});

describeWithRealDaemon('aicc demo --agent pi-daemon:SOCKET through a daemon crash', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: aicc({ tool: 'say', input: { text: 'Morning!' } }) });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
  }, 240_000);
  afterAll(async () => {
    await daemon?.dispose();
    await stub?.close();
  });

  it('survives a SIGKILL and restart of the daemon mid-decision, goes on deciding, and runs no call twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aicc-demo-crash-'));
    const record = join(dir, 'day.ndjson');
    // The second decision is slow: the daemon is killed while the model answers it.
    stub.script(aicc({ tool: 'go', input: { direction: 'south' } }), { text: aicc({ tool: 'look' }), chunkChars: 4, chunkDelayMs: 400 });
    const child = spawn(
      process.execPath,
      [CLI, 'demo', '--agent', `pi-daemon:${daemon.socket}`, '--cwd', daemon.workDir, '--ticks', '150', '--record', record],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => stub.requests.length >= 2);
      await daemon.restart({ kill: true });
      const afterCrash = stub.requests.length;
      expect(await exited).toBe(0);
      expect(stderr).not.toMatch(/gone|Error/);
      expect(stub.requests.length).toBeGreaterThan(afterCrash);
      expect(stdout).toContain('Cleo says: "Morning!"');
      const lines = readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const cleo = lines
        .filter((line) => line['character'] === 'cleo' && line['message'] !== undefined)
        .map((line) => line['message'] as Record<string, unknown>);
      const calls = cleo.filter((m) => m['type'] === 'tool_call').map((m) => m['call_id']);
      const results = cleo.filter((m) => m['type'] === 'tool_result').map((m) => m['call_id']);
      // Every call ran once and was answered once; the one the crash cut off never ran.
      expect(new Set(calls).size).toBe(calls.length);
      expect(results.sort()).toEqual([...calls].sort());
      expect(cleo.filter((m) => m['type'] === 'tool_call').map((m) => m['tool'])).not.toContain('look');
      const ends = lines.filter((line) => 'decision' in line).map((line) => (line['decision'] as { ended: string }).ended);
      expect(ends).toContain('reply_failed');
      expect(ends.lastIndexOf('replied')).toBeGreaterThan(ends.indexOf('reply_failed'));
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Resolves once `condition` holds, looking every 50 ms for at most 60 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 60_000) throw new Error('until: the condition did not hold within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
