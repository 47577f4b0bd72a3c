// `aicc eval … --agent pi=pi-daemon:SOCKET` against the REAL pi-daemon, run as a user runs it: the
// built CLI in a process of its own, two worker threads, each episode's Cleo a session of its own on
// the daemon (its model the local stub, answering by the request alone) beside the world's policy.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvalSummary } from '../../../src/research/evalResult.js';
import { aicc } from '../../agent/pilot/fakeBackend.js';
import { startStubModel, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

const CLI = new URL('../../../dist/cli.js', import.meta.url).pathname;
const DIRECTIONS = ['north', 'south', 'east', 'west'];

describeWithRealDaemon('aicc eval with a pi-daemon agent, against the real daemon', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  let dir = '';
  beforeAll(async () => {
    stub = await startStubModel({
      respond: (body) => {
        const told = (body.messages ?? []).filter((message) => message.role === 'user').length;
        return { text: aicc({ tool: 'go', input: { direction: DIRECTIONS[told % 4]! } }), usage: { promptTokens: 300 + told, completionTokens: 9 } };
      },
    });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
    dir = mkdtempSync(join(tmpdir(), 'aicc-eval-daemon-'));
  }, 240_000);
  afterAll(async () => {
    await daemon?.dispose();
    await stub?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('compares the daemon-driven Cleo with the world’s: a session per episode, calls, decisions and tokens counted', async () => {
    const out = join(dir, 'results.jsonl');
    // A process of its own, not spawnSync: the stub model answering it lives in this one.
    const run = await cli([
      'eval',
      'village',
      '--agent',
      'world=policy:world',
      '--agent',
      `daemon=pi-daemon:${daemon.socket}`,
      '--role',
      'cleo',
      '--seeds',
      '1..2',
      '--max-ticks',
      '24',
      '--workers',
      '2',
      '--cwd',
      daemon.workDir,
      '--out',
      out,
      '--json',
    ]);
    expect(run.stderr).not.toMatch(/Error|refused/);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as EvalSummary;
    const row = summary.rows.find((each) => each.agent === 'daemon')!;
    expect(row.episodes).toBe(2);
    expect(row.failures).toEqual({});
    expect(row.callsByTool['go']).toBeGreaterThan(0);
    expect(row.latencyMs!.decisions).toBeGreaterThanOrEqual(4);
    expect(row.tokensPerEpisode.input).toBeGreaterThan(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    // Each episode's Cleo was briefed in a conversation of its own: two briefings at least, none repeated in one.
    const briefed = stub.requests.filter((request) => JSON.stringify(request.body.messages).includes('You are Cleo'));
    expect(briefed.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

/** Runs the built `aicc` with `args`; resolves with its exit code and output. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
