// README's "Research runs" commands, run the way a user runs them: `npx aicc …` in a project that
// installed the packed tarball. The three sweep commands run as written (each line's `# …` comment
// says what it prints or holds, and is checked too); the two queue commands run with HOST replaced by
// a local Redis of the test's own and the seeds cut to 1..40 (5,000 seeds would take a minute here).

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './codeBlocks.js';
import { consumerProject, packedSkip, ROOT } from './packed.js';
import { describeWithRedis, startRedis, type RedisServer } from '../node/queue/redisServer.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Research runs'));
const [sweepBlock, queueBlock] = codeBlocks('README.md', section).filter((block) => block.lang === 'sh');

/** Each line of a shell block: its words (no shell features are used) and its `# comment`. */
function commands(code: string): Array<{ words: string[]; comment: string }> {
  return code
    .trim()
    .split('\n')
    .map((line) => {
      const [command = '', comment = ''] = line.split(/\s+#\s+/);
      return { words: command.trim().split(/\s+/), comment: comment.trim() };
    });
}

let project: string;

beforeAll(() => {
  if (packedSkip !== undefined) throw new Error(packedSkip);
  // bullmq and ioredis as a user adds them for --queue (optional peers), linked from this project.
  project = consumerProject({ name: 'research-commands', link: ['bullmq', 'ioredis'] });
  rmSync(join(project, 'results.jsonl'), { force: true });
}, 300_000);

/** `npx aicc …` → the project's own bin; `wc -l FILE` as it is. */
function runLine(words: string[]): { status: number | null; stdout: string; stderr: string } {
  const [program, ...args] = words[0] === 'npx' ? [join(project, 'node_modules', '.bin', words[1]!), ...words.slice(2)] : words;
  const result = spawnSync(program!, args, { cwd: project, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("README's research sweep, in three commands", () => {
  it('has the three commands', () => {
    expect(commands(sweepBlock!.code).map((line) => line.words.slice(0, 3).join(' '))).toEqual(['npx aicc sweep', 'npx aicc sweep', 'wc -l results.jsonl']);
  });

  it('runs them as written: a sweep, a resumed larger one, and the lines they wrote', () => {
    const [first, second, count] = commands(sweepBlock!.code);
    const one = runLine(first!.words);
    expect(one.stderr).toBe('');
    expect(one.status).toBe(0);
    expect(one.stdout).toMatch(/^apples=3 dayTicks=190: 200 episodes \(/m);
    expect(one.stdout).toMatch(/ran 400 episodes, 0 already in the results file/);
    const two = runLine(second!.words);
    expect(two.status).toBe(0);
    // "more seeds: only the new ones run"
    expect(second!.comment).toMatch(/only the new ones run/);
    expect(two.stdout).toMatch(/ran 400 episodes, 400 already in the results file/);
    expect(two.stdout).toMatch(/^apples=3 dayTicks=600: 400 episodes \(goals_met 400\)/m);
    const lines = runLine(count!.words);
    const held = Number(/(\d+) episodes/.exec(count!.comment)![1]);
    expect(lines.stdout.trim()).toBe(`${held} results.jsonl`);
  }, 240_000);
});

describeWithRedis("README's research sweep across machines", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('runs the coordinator and a worker as written, on a local Redis', async () => {
    const [coordinator, worker] = commands(queueBlock!.code).map(({ words }) =>
      words.map((word) => word.replace('redis://HOST:6379', redis.url).replace('1..5000', '1..40').replace('results.jsonl', 'across.jsonl')),
    );
    expect(coordinator!.slice(0, 3).join(' ')).toBe('npx aicc sweep');
    expect(worker!.slice(0, 3).join(' ')).toBe('npx aicc worker');
    rmSync(join(project, 'across.jsonl'), { force: true });
    const workerProcess = spawn(join(project, 'node_modules', '.bin', 'aicc'), worker!.slice(2), { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        workerProcess.stdout.once('data', (data: Buffer) => (/serving queue aicc-sweep/.test(String(data)) ? resolve() : reject(new Error(String(data)))));
        workerProcess.once('exit', (code) => reject(new Error(`aicc worker exited with ${code}`)));
      });
      const sweep = runLine(coordinator!);
      expect(sweep.status, sweep.stderr).toBe(0);
      expect(sweep.stdout).toMatch(/ran 80 episodes, 0 already in the results file/);
      expect(readFileSync(join(project, 'across.jsonl'), 'utf8').trim().split('\n')).toHaveLength(80);
    } finally {
      workerProcess.kill('SIGTERM');
    }
  }, 120_000);
});
