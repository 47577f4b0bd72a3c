import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../src/node/cli/evalCommand.js';
import { reportCommand } from '../../../src/node/cli/reportCommand.js';
import { summarizeEval } from '../../../src/node/eval/evalSummary.js';
import { formatEvalSummary } from '../../../src/node/eval/formatEval.js';
import type { EvalEpisode } from '../../../src/research/evalResult.js';
import { readResults } from '../../../src/node/sweep/resultsFile.js';
import { type StubModel, startStubModel } from '../../e2e/stubModel.js';
import { requireBuiltWorker, tempFolder } from '../sweep/helpers.js';

beforeAll(requireBuiltWorker);

let stub: StubModel;
beforeAll(async () => {
  stub = await startStubModel({
    respond: (body) => {
      const usage = { promptTokens: 200, completionTokens: 20 };
      return body.messages?.at(-1)?.role === 'tool' ? { text: 'Fine.', usage } : { text: '', toolCalls: [{ name: 'look', arguments: {} }], usage };
    },
  });
});
afterAll(() => stub?.close());

function fakeIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: { write: (text: string) => out.push(text) }, stderr: { isTTY: false, columns: 120, write: (text: string) => err.push(text) } },
  };
}

/** A signal nothing aborts: keeps the test's process free of a SIGINT listener. */
const runtime = { signal: new AbortController().signal };

describe('aicc eval', () => {
  it('compares the agents, prints the table, writes the results and the report; aicc report makes the same summary from the file', async () => {
    const folder = tempFolder();
    const out = join(folder, 'results.jsonl');
    const report = join(folder, 'report.html');
    const { io, out: stdout, err } = fakeIo();
    const argv = ['village', '--agent', 'world=policy:world', '--agent', 'policy:wanderer', '--seeds', '1..4', '--param', 'dayTicks=120', '--workers', '2'];
    const code = await evalCommand([...argv, '--out', out, '--report', report], io, runtime);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const episodes = readResults(out).episodes as EvalEpisode[];
    expect(episodes).toHaveLength(8);
    const summary = summarizeEval({
      world: 'village',
      agents: [
        { name: 'world', spec: 'policy:world' },
        { name: 'wanderer', spec: 'policy:wanderer' },
      ],
      episodes,
    });
    expect(stdout.join('')).toBe(`${formatEvalSummary(summary)}\n\nran 8 episodes, 0 already in the results file; 8 of 8 in ${out}; report in ${report}\n`);
    expect(stdout.join('')).toMatch(/^apples=3 dayTicks=120\n {2}agent +episodes +success \(95% CI\)/);
    const html = readFileSync(report, 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('"wanderer"');

    // From the file alone the agents' order is not known: the report lists them by name.
    const again = fakeIo();
    expect(await reportCommand([out, '--json'], again.io)).toBe(0);
    const [world, wanderer] = summary.agents;
    const byName = { ...summary, agents: [wanderer, world], rows: [...summary.rows].reverse() };
    const { comparisons: _, ...printed } = JSON.parse(again.out.join('')) as typeof summary;
    const { comparisons: __, ...expected } = JSON.parse(JSON.stringify(byName)) as typeof summary;
    expect(printed).toEqual(expected);

    // Replayed from their recordings: all match.
    const verify = fakeIo();
    expect(await evalCommand([...argv, '--out', out, '--resume', '--verify', '3'], verify.io, runtime)).toBe(0);
    expect(verify.err.join('')).toBe('verified 3 of 3 episodes from their recordings\n');
    expect((readResults(out).episodes as EvalEpisode[]).filter((episode) => episode.verified === true)).toHaveLength(3);
  });

  it('stops at the budget with exit 3, saying what it spent; --json prints the summary', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const { io, out: stdout, err } = fakeIo();
    const code = await evalCommand(
      [
        'village',
        '--agent',
        `m=model:stub/stub-model@${stub.baseUrl}`,
        '--role',
        'cleo',
        '--seeds',
        '1..10',
        '--param',
        'dayTicks=80',
        '--workers',
        '1',
        '--out',
        out,
        '--budget-tokens',
        '1000',
        '--json',
      ],
      io,
      runtime,
    );
    expect(code).toBe(3);
    const printed = JSON.parse(stdout.join('')) as { jobs: number; ran: number; missing: number; rows: Array<{ agent: string }> };
    expect(printed.jobs).toBe(10);
    expect(printed.ran).toBeGreaterThan(0);
    expect(printed.missing).toBe(10 - printed.ran);
    expect(printed.rows.map((row) => row.agent)).toEqual(['m']);
    expect(err.join('')).toMatch(
      /aicc eval: the 1000-token budget was reached: \d+ episodes not run \(spent \d+ tokens, \$0\.0000\); raise the budget and --resume to finish/,
    );
  });

  it('prints the plan and its worst case with --dry-run, running nothing', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const { io, out: stdout } = fakeIo();
    const code = await evalCommand(
      [
        'village',
        '--agent',
        'policy:world',
        '--agent',
        `m=model:stub/stub-model@${stub.baseUrl}`,
        '--role',
        'cleo',
        '--seeds',
        '1..5',
        '--max-ticks',
        '100',
        '--max-tokens',
        '64',
        '--out',
        out,
        '--dry-run',
      ],
      io,
      runtime,
    );
    expect(code).toBe(0);
    const text = stdout.join('');
    expect(text).toContain('village: 2 agents × 1 params × 5 seeds = 10 episodes, 10 to run; roles: cleo');
    // 5 episodes × 100 ticks × 1 role × 6 turns, each its whole context (8,192) in and 64 out; a local server costs nothing.
    expect(text).toContain('worst case for m: 5 episodes, at most 3000 model turns, 24576000 tokens in, 192000 out, $0.00');
    expect(existsSync(out)).toBe(false);
  });

  it('says what is wrong with the command, exit 2, before any episode', async () => {
    const out = join(tempFolder(), 'results.jsonl');
    const cases: Array<[string[], RegExp]> = [
      [['village', '--seeds', '1..2', '--out', out], /name the agents to compare/],
      [['village', '--agent', 'policy:world', '--out', out], /--seeds is required/],
      [['village', '--agent', 'policy:world', '--seeds', '1..2'], /--out is required/],
      [['village', '--agent', 'policy:nobody', '--seeds', '1..2', '--out', out], /has no policy "nobody"/],
      [['village', '--agent', 'x=pi:a/b', '--pi-bin', '/nowhere/pi', '--seeds', '1..2', '--out', out], /cannot start: no pi at \/nowhere\/pi/],
      [
        ['village', '--agent', 'policy:world', '--pi-bin', 'pi', '--seeds', '1..2', '--out', out],
        /--pi-bin and --pi-agent-dir go with a pi:PROVIDER\/MODEL agent/,
      ],
      [['village', '--agent', 'x=pi:a/b', '--cwd', '/tmp', '--seeds', '1..2', '--out', out], /--cwd goes with a pi-daemon:SOCKET agent/],
      [
        ['village', '--agent', 'policy:world', '--quiet-ms', '100', '--seeds', '1..2', '--out', out],
        /--quiet-ms and --answered-ms go with a cmd:COMMAND or mcp:COMMAND agent/,
      ],
      [['village', '--agent', 'policy:world', '--role', 'zed', '--seeds', '1..2', '--out', out], /has no character "zed"/],
      [['village', '--agent', 'policy:world', '--seeds', '1..2', '--out', out, '--budget-usd', 'lots'], /--budget-usd takes a number > 0, got "lots"/],
      [['village', '--agent', 'policy:world', '--seeds', '1..2', '--out', out, '--hang-ms', '0'], /--hang-ms takes a whole number >= 1/],
      [['village', '--agent', 'policy:world', '--seeds', '1..2', '--out', out, '--no-recordings', '--verify'], /--no-recordings leaves nothing to --verify/],
      [['village', '--agent', 'policy:world', '--seeds', '1..2', '--out', out, '--queue', 'http://x'], /--queue takes a Redis URL/],
    ];
    for (const [argv, why] of cases) {
      const { io, err } = fakeIo();
      expect(await evalCommand(argv, io, runtime)).toBe(2);
      expect(err.join('')).toMatch(why);
      expect(err.join('')).toMatch(/run `aicc eval --help`\n$/);
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe('aicc report', () => {
  it("refuses a sweep's results file and a missing one", async () => {
    const folder = tempFolder();
    const { runSweep } = await import('../../../src/node/sweep/runSweep.js');
    const sweep = join(folder, 'sweep.jsonl');
    await runSweep({ world: 'village', seeds: [1], grid: { dayTicks: [20] }, out: sweep, workers: 1 });
    for (const [path, why] of [
      [sweep, /episode 1 names no agent: this is a sweep's results file, not an eval's/],
      [join(folder, 'missing.jsonl'), /holds no episodes/],
    ] as const) {
      const { io, err } = fakeIo();
      expect(await reportCommand([path], io)).toBe(2);
      expect(err.join('')).toMatch(why);
    }
  });
});
