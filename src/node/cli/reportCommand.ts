// `aicc report results.jsonl --out report.html`: an eval's report again from its results file (the
// episodes of a finished, stopped or resumed eval), with no episode run; `--json` prints the summary.

import { CapsuleError } from '../../base/errors.js';
import type { EvalEpisode } from '../../research/evalResult.js';
import { paramsKey } from '../../research/sweepPlan.js';
import { summarizeEval } from '../eval/evalSummary.js';
import { formatEvalSummary } from '../eval/formatEval.js';
import { writeReport } from '../eval/report.js';
import { readResults } from '../sweep/resultsFile.js';
import { readArgs } from './args.js';
import type { CliIo } from './cliIo.js';
import { userMessage } from './userMessage.js';

const HELP = `aicc report — an eval's report from its results file

Usage: aicc report RESULTS.jsonl [--out report.html] [--json] [--title TEXT]

Reads the episodes \`aicc eval\` wrote (one JSON line each), summarizes them per agent (in name
order) and params as the eval does, and writes the self-contained HTML report (charts, tables, decision timelines;
no network needed to open it). Without --out it prints the summary table.

Options:
  --out FILE     write the HTML report here
  --json         print the summary as JSON
  --title TEXT   the report's title (default: Evaluation: WORLD)
  -h, --help     this help

Exit codes: 0 done, 2 bad usage or a file that is not an eval's results.
`;

export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`aicc report: ${message}; run \`aicc report --help\`\n`);
    return 2;
  };
  const parsed = readArgs(argv, {
    options: {
      out: { type: 'string', expects: 'a file name' },
      json: { type: 'boolean' },
      title: { type: 'string' },
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
  if (positionals.length !== 1) return usage('name one results file');
  const path = positionals[0]!;
  let episodes: EvalEpisode[];
  try {
    episodes = evalEpisodesOf(path);
  } catch (error) {
    return usage(userMessage(error));
  }
  const agents = new Map<string, string>();
  for (const episode of episodes) if (!agents.has(episode.agent)) agents.set(episode.agent, episode.agentSpec);
  // By name: the file's order is the order episodes ended in, which threads make different every run.
  const ordered = [...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, spec]) => ({ name, spec }));
  const summary = summarizeEval({ world: episodes[0]!.world, agents: ordered, episodes: sortedEpisodes(episodes) });
  if (values.out !== undefined) writeReport(values.out, { summary, episodes, ...(values.title !== undefined && { title: values.title }) });
  if (values.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else io.stdout.write(`${formatEvalSummary(summary)}\n`);
  if (values.out !== undefined) io.stderr.write(`report in ${values.out}\n`);
  return 0;
}

/** The episodes of an eval's results file: all of one world, each naming its agent. */
function evalEpisodesOf(path: string): EvalEpisode[] {
  const { episodes } = readResults(path);
  if (episodes.length === 0) throw new CapsuleError('AICC_INVALID_OPTION', `${path} holds no episodes`);
  const worlds = new Set(episodes.map((episode) => episode.world));
  if (worlds.size > 1) throw new CapsuleError('AICC_INVALID_OPTION', `${path} mixes worlds (${[...worlds].join(', ')}); a report covers one`);
  const stray = episodes.findIndex(
    (episode) => typeof (episode as Partial<EvalEpisode>).agent !== 'string' || (episode as Partial<EvalEpisode>).timeline === undefined,
  );
  if (stray >= 0)
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${path}: episode ${stray + 1} names no agent: this is a sweep's results file, not an eval's (aicc eval writes those)`,
    );
  return episodes as EvalEpisode[];
}

/** In a fixed order whatever order they ended in: by params, seed and agent. */
function sortedEpisodes(episodes: EvalEpisode[]): EvalEpisode[] {
  const keyed = episodes.map((episode) => ({ episode, params: paramsKey(episode.params) }));
  keyed.sort((a, b) => compareText(a.params, b.params) || a.episode.seed - b.episode.seed || compareText(a.episode.agent, b.episode.agent));
  return keyed.map(({ episode }) => episode);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
