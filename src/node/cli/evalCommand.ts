// `aicc eval WORLD --agent NAME=SPEC … --seeds 1..N --out results.jsonl`: agents compared on a
// world over seeds (and a params grid), on this machine's worker threads, one JSON line per episode
// as each ends, then the comparison table; `--report` writes the HTML report beside it. Usage
// mistakes (a world, agent, role, key or value that cannot work) are found before any episode runs.

import { MAX_SEEDS } from '../../research/sweepPlan.js';
import { AGENT_SPEC_FORMS, splitNamedAgent } from '../eval/agentSpec.js';
import { formatEvalSummary } from '../eval/formatEval.js';
import { writeReport } from '../eval/report.js';
import { type EvalOptions, type EvalResult, planEval, type PreparedEval, prepareEval, runPreparedEval } from '../eval/runEval.js';
import { BUILT_IN_WORLDS } from '../sweep/loadWorld.js';
import { MAX_WORKERS } from '../sweep/runSweep.js';
import { SeedList } from '../sweep/seedList.js';
import { readArgs } from './args.js';
import type { CliIo } from './cliIo.js';
import { progressBar, type ProgressBar, type ProgressStream } from './progress.js';
import { firstCtrlC, paramsGrid, wholeNumbers } from './sweepArgs.js';
import { userMessage } from './userMessage.js';

const HELP = `aicc eval — agents compared on a world: success, cost, latency and rule-breaking, over seeds

Usage: aicc eval WORLD --agent NAME=SPEC [--agent …] --seeds 1..N --out results.jsonl [options]

WORLD is a built-in world (${BUILT_IN_WORLDS.join(', ')}) or a compiled world module, as for
\`aicc sweep\`; it must judge success (its episodes' goal(character)). Each seed runs once per
agent: the characters named by --role are played by the agent under test, the rest by the world's
own policy, every call through the capsule's checks and limits. A SPEC is ${AGENT_SPEC_FORMS}
(policy:world is the world's own; the village also has policy:wanderer; cmd:COMMAND runs a
program speaking aicc/0.1 as NDJSON on its stdio, one per character, AICC_CHARACTER in its
environment; mcp:COMMAND runs an MCP client the same way, the character served to it as an MCP
server over its stdio; pi:PROVIDER/MODEL starts pi for each character, pi-daemon:SOCKET opens a
session on a running pi-daemon). A model's key comes from its provider's environment variable or
pi's credential store, and stays in the process that runs the episode.

Options:
  --agent NAME=SPEC    an agent under test; repeat for each (two at least, to compare)
  --seeds LIST         seeds to run: 1..30, 1,5,9 or both; at most ${MAX_SEEDS}
  --role CHARACTER     a character the agent plays; repeat for more (default: every character)
  --param NAME=V1,V2   values to try for one of the world's parameters, as for \`aicc sweep\`
  --out FILE           the results file (JSON lines); refused if it holds episodes, unless --resume
  --resume             keep the episodes already in --out and run only the missing ones
  --workers K          worker threads (default: the machine's available parallelism, at most ${MAX_WORKERS})
  --max-ticks N        most ticks per episode (default: the world's)
  --hang-ms N          wall ms an agent may take to answer after a tick before it fails as hung
                       (default 60000); the episode goes on with its characters idle
  --max-tokens N       a model agent's longest answer per turn, in tokens (default 512)
  --provider-concurrency N
                       model requests in flight to one provider at once, over the whole eval
                       (with --queue: per worker process); default one per character played
  --budget-tokens N    stop handing out episodes once the eval's tokens (in + out) reach N
  --budget-usd X       … once its cost, as the provider's catalog prices it, reaches X dollars
  --budget-minutes M   … once this run has taken M minutes
  --quiet-ms N         cmd: and mcp: agents: wall ms of silence that count as done with a tick
                       when no call of theirs waits for one (default 25)
  --answered-ms N      … just after they were answered (default 100): raise both for a program
                       that thinks between calls, such as an MCP client driven by a model
  --pi-bin PATH        pi: agents: the pi executable (default pi on PATH; a .js file runs with node)
  --pi-agent-dir DIR   pi: agents: where pi finds models.json and auth (default ~/.pi/agent)
  --cwd DIR            pi-daemon: agents: the sessions' folder, under the daemon's --allow-root
                       (default: this folder)
  --report FILE        also write the HTML report (self-contained: charts, tables, timelines)
  --verify [N]         then replay N episodes (default 10, spread over the file) from their
                       recordings with no model, and mark each verified or not by its state hash
  --record-dir DIR     where each episode's recording (its model cassette) goes (default: beside
                       --out, results.recordings/ for results.jsonl)
  --no-recordings      keep no recordings (nothing to verify, no links in the report)
  --json               print the summary as JSON instead of the table
  --dry-run            print the plan and its worst-case tokens and cost, and run nothing
  --queue redis://HOST:PORT
                       run the episodes on BullMQ instead (\`aicc worker --queue …\` on any machine;
                       the workers write the recordings, so --record-dir must be shared with them)
  --queue-name NAME    with --queue: the BullMQ queue (default aicc-sweep; its workers need the same)
  -h, --help           this help

Ctrl-C or a budget stops handing out episodes; those in flight are written, and --resume finishes.
\`aicc report results.jsonl --out report.html\` makes the report again from the results file.

Exit codes: 0 every episode is in the results file (and each verified one matched), 1 the eval
failed or a recording did not replay, 2 bad usage, 3 a budget stopped it (what ran is kept),
130 stopped by Ctrl-C.
`;

/** What a test hands in instead of the process's own: Ctrl-C and the worker entry. */
export interface EvalRuntime {
  signal?: AbortSignal;
  workerUrl?: URL;
}

export async function evalCommand(argv: string[], io: CliIo, runtime: EvalRuntime = {}): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`aicc eval: ${message}; run \`aicc eval --help\`\n`);
    return 2;
  };
  const parsed = readArgs(argv, {
    options: {
      agent: { type: 'string', multiple: true, expects: 'NAME=SPEC' },
      seeds: { type: 'string' },
      role: { type: 'string', multiple: true, expects: 'a character' },
      param: { type: 'string', multiple: true },
      out: { type: 'string', expects: 'a file name' },
      resume: { type: 'boolean' },
      workers: { type: 'string' },
      'max-ticks': { type: 'string' },
      'hang-ms': { type: 'string' },
      'max-tokens': { type: 'string' },
      'provider-concurrency': { type: 'string' },
      'budget-tokens': { type: 'string' },
      'budget-usd': { type: 'string' },
      'budget-minutes': { type: 'string' },
      report: { type: 'string', expects: 'a file name' },
      verify: { type: 'string', bare: '10' },
      'record-dir': { type: 'string', expects: 'a folder' },
      'no-recordings': { type: 'boolean' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      queue: { type: 'string', expects: 'a Redis URL' },
      'queue-name': { type: 'string' },
      'pi-bin': { type: 'string', expects: 'a path' },
      'quiet-ms': { type: 'string' },
      'answered-ms': { type: 'string' },
      'pi-agent-dir': { type: 'string', expects: 'a folder' },
      cwd: { type: 'string', expects: 'a folder' },
      help: { type: 'boolean', short: 'h' },
    },
    positionals: true,
  });
  if (typeof parsed === 'string') return usage(parsed);
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage('name one world, a built-in one or a module');
  if (values.agent === undefined) return usage('name the agents to compare (--agent NAME=SPEC, repeated)');
  if (values.seeds === undefined) return usage('--seeds is required (e.g. --seeds 1..30)');
  if (values.out === undefined) return usage('--out is required: the results file, one JSON line per episode');
  const numbers = wholeNumbers(values, [
    'workers',
    'max-ticks',
    'hang-ms',
    'max-tokens',
    'provider-concurrency',
    'budget-tokens',
    'verify',
    'quiet-ms',
    'answered-ms',
  ] as const);
  if (typeof numbers === 'string') return usage(numbers);
  if (numbers.workers !== undefined && numbers.workers > MAX_WORKERS) return usage(`--workers takes at most ${MAX_WORKERS}`);
  const positive: Partial<Record<'budget-usd' | 'budget-minutes', number>> = {};
  for (const name of ['budget-usd', 'budget-minutes'] as const) {
    const text = values[name];
    if (text === undefined) continue;
    const value = Number(text);
    if (!(text.trim() !== '' && Number.isFinite(value) && value > 0)) return usage(`--${name} takes a number > 0, got ${JSON.stringify(text)}`);
    positive[name] = value;
  }
  const grid = paramsGrid(values.param ?? []);
  if (typeof grid === 'string') return usage(grid);
  if (values.queue !== undefined) {
    if (!/^rediss?:\/\/./.test(values.queue)) return usage('--queue takes a Redis URL like redis://127.0.0.1:6379 (or rediss:// for TLS)');
    if (numbers.workers !== undefined) return usage('--workers does not apply with --queue: each `aicc worker --queue …` process is a worker');
  } else if (values['queue-name'] !== undefined) return usage('--queue-name goes with --queue');
  if (values['no-recordings'] === true && (values.verify !== undefined || values['record-dir'] !== undefined))
    return usage('--no-recordings leaves nothing to --verify or to put in --record-dir');

  const specs = values.agent.map((agent) => splitNamedAgent(agent).spec);
  if ((values['pi-bin'] !== undefined || values['pi-agent-dir'] !== undefined) && !specs.some((spec) => spec.startsWith('pi:')))
    return usage('--pi-bin and --pi-agent-dir go with a pi:PROVIDER/MODEL agent');
  if (values.cwd !== undefined && !specs.some((spec) => spec.startsWith('pi-daemon:'))) return usage('--cwd goes with a pi-daemon:SOCKET agent');
  if ((values['quiet-ms'] !== undefined || values['answered-ms'] !== undefined) && !specs.some((spec) => /^(cmd|mcp):/.test(spec)))
    return usage('--quiet-ms and --answered-ms go with a cmd:COMMAND or mcp:COMMAND agent');
  const pi = {
    ...(values['pi-bin'] !== undefined && { bin: values['pi-bin'] }),
    ...(values['pi-agent-dir'] !== undefined && { agentDir: values['pi-agent-dir'] }),
    ...(values.cwd !== undefined && { cwd: values.cwd }),
  };
  const budget = {
    ...(numbers['budget-tokens'] !== undefined && { tokens: numbers['budget-tokens'] }),
    ...(positive['budget-usd'] !== undefined && { usd: positive['budget-usd'] }),
    ...(positive['budget-minutes'] !== undefined && { wallMs: positive['budget-minutes'] * 60_000 }),
  };
  let options: EvalOptions;
  let prepared: PreparedEval;
  try {
    SeedList.parse(values.seeds, '--seeds');
    options = {
      world: positionals[0]!,
      agents: values.agent,
      seeds: values.seeds,
      grid,
      out: values.out,
      ...(values.role !== undefined && { roles: values.role }),
      ...(values.resume === true && { resume: true }),
      ...(numbers['max-ticks'] !== undefined && { maxTicks: numbers['max-ticks'] }),
      ...(numbers['hang-ms'] !== undefined && { hangMs: numbers['hang-ms'] }),
      ...(numbers['quiet-ms'] !== undefined && { quietMs: numbers['quiet-ms'] }),
      ...(numbers['answered-ms'] !== undefined && { answeredMs: numbers['answered-ms'] }),
      ...(numbers['max-tokens'] !== undefined && { maxTokens: numbers['max-tokens'] }),
      ...(numbers['provider-concurrency'] !== undefined && { providerConcurrency: numbers['provider-concurrency'] }),
      ...(numbers.workers !== undefined && { workers: numbers.workers }),
      ...(runtime.workerUrl !== undefined && { workerUrl: runtime.workerUrl }),
      ...(Object.keys(budget).length > 0 && { budget }),
      ...(Object.keys(pi).length > 0 && { pi }),
      ...(numbers.verify !== undefined && { verify: numbers.verify }),
      ...(values.queue !== undefined && { queue: values.queue }),
      ...(values['queue-name'] !== undefined && { queueName: values['queue-name'] }),
      ...(values['no-recordings'] === true ? { recordDir: false as const } : values['record-dir'] !== undefined && { recordDir: values['record-dir'] }),
    };
    prepared = await prepareEval(options, 'runEval');
  } catch (error) {
    return usage(userMessage(error));
  }

  if (values['dry-run'] === true) {
    const plan = await planEval(options, prepared);
    if (values.json) io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    else {
      io.stdout.write(
        `${plan.world}: ${plan.agents.length} agents × ${plan.params} params × ${plan.seeds} seeds = ${plan.jobs} episodes, ${plan.todo} to run; roles: ${plan.roles.join(', ')}\n`,
      );
      for (const agent of plan.agents) io.stdout.write(`  ${agent.name}  ${agent.spec}\n`);
      for (const worst of plan.worstCase)
        io.stdout.write(
          `worst case for ${worst.agent}: ${worst.episodes} episodes, at most ${worst.turns} model turns, ${worst.inputTokens} tokens in, ${worst.outputTokens} out, $${worst.usd.toFixed(2)}\n`,
        );
      if (plan.worstCase.length > 0)
        io.stdout.write('(a bound, not an estimate: every role deciding on every tick, each decision using every turn and its whole context)\n');
    }
    return 0;
  }

  const interrupt = runtime.signal === undefined ? firstCtrlC() : { signal: runtime.signal, release: () => {} };
  let bar: ProgressBar | undefined;
  const progress = (done: number, total: number): void => {
    bar ??= progressBar(io.stderr as ProgressStream, { eta: true, baseline: done });
    bar(done, total);
  };
  let result: EvalResult;
  try {
    result = await runPreparedEval({ ...options, progress, signal: interrupt.signal }, prepared);
  } finally {
    bar?.finish();
    interrupt.release();
  }
  if (values.report !== undefined) writeReport(values.report, { summary: result.summary, episodes: result.episodes });
  const held = result.episodes.length - result.ran;
  const line = `ran ${result.ran} episode${result.ran === 1 ? '' : 's'}, ${held} already in the results file; ${result.episodes.length} of ${result.jobs} in ${options.out}${values.report !== undefined ? `; report in ${values.report}` : ''}`;
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ ...result.summary, jobs: result.jobs, ran: result.ran, missing: result.missing.length, out: options.out }, null, 2)}\n`,
    );
    io.stderr.write(`${line}\n`);
  } else io.stdout.write(`${result.summary.rows.length > 0 ? `${formatEvalSummary(result.summary)}\n\n` : ''}${line}\n`);
  if (result.verified !== undefined) {
    const { checked, matched, mismatches } = result.verified;
    io.stderr.write(`verified ${matched} of ${checked} episodes from their recordings\n`);
    for (const { key, why } of mismatches) io.stderr.write(`aicc eval: ${key} did not replay: ${why}\n`);
    if (mismatches.length > 0) return 1;
  }
  if (result.budgetReached !== undefined) {
    const { what, limit } = result.budgetReached;
    io.stderr.write(
      `aicc eval: the ${what === 'wallMs' ? `${limit / 60_000}-minute` : what === 'usd' ? `$${limit}` : `${limit}-token`} budget was reached: ${result.missing.length} episodes not run (spent ${result.spent.tokens} tokens, $${result.spent.usd.toFixed(4)}); raise the budget and --resume to finish\n`,
    );
    return 3;
  }
  if (result.missing.length > 0) {
    io.stderr.write(
      `aicc eval: stopped with ${result.missing.length} episode${result.missing.length === 1 ? '' : 's'} missing; run the same command with --resume to finish\n`,
    );
    return interrupt.signal.aborted ? 130 : 1;
  }
  return 0;
}
