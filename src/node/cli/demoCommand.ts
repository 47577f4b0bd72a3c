// `aicc demo`: the village, headless — three villagers driven by scripted agents, every action a
// real AICC tool call — then the summary. Same seed, same story, byte for byte.

import { writeFileSync } from 'node:fs';
import { DEFAULT_SEED, DEFAULT_TICKS, runVillage, type VillageOptions } from '../../worlds/village/run.js';
import { VILLAGERS } from '../../worlds/village/world.js';
import { readArgs, wholeNumber } from './args.js';
import type { CliIo } from './cliIo.js';
import type { DaemonAgentOptions, PiAgentOptions } from '../pi/piAgent.js';
import { progressBar, type ProgressStream } from './progress.js';

const HELP = `aicc demo — the village of Millbrook, driven by agents through aicc/0.1

Usage: aicc demo [options]

Runs a day in the village, headless, and prints its story, then a summary: the ticks it ran and
why it stopped, calls by tool, refusals by code, decision latency, wall time.

  --ticks N         most ticks to run, 10 per simulated second (default ${DEFAULT_TICKS});
                    the day ends sooner once every villager has met its goal
  --seed N          the seed for ids and the agents' choices (default ${DEFAULT_SEED});
                    the same seed tells the same story
  --json            print one JSON object instead: {seed, ticks (run), maxTicks, stop, story,
                    summary, wall; with --agent pi…: pilot, and agentLost if it went away};
                    stop is goals_met, tick_limit or interrupted
  --record FILE     write every AICC message of every session to FILE (NDJSON), for
                    \`aicc replay FILE\` and \`aicc validate FILE\`
  --play [NAME]     play a villager yourself (${VILLAGERS.join(', ')}; default cleo): commands come from
                    the terminal or standard input; type help for them, quit to end the day
  --agent pi[:NAME] let pi drive a villager (default cleo) in real time, pi --mode rpc run
                    here behind a private gateway; pi uses your own pi configuration, or:
  --pi-bin PATH       the pi executable (default pi on PATH; a .js file runs with node)
  --provider NAME     pi's --provider
  --model ID          pi's --model
  --pi-agent-dir DIR  where pi finds models.json and auth (default ~/.pi/agent)
  --agent pi-daemon:SOCKET
                    let a running pi-daemon drive Cleo, straight over its Unix socket
                    (protocol v2; --provider and --model together pick the session's model).
                    Cleo's session works in --cwd: the daemon's --allow-root must hold it,
                    without overlapping its --state-dir or --agent-dir. Each run opens a fresh
                    session, replacing what an earlier run left; one the daemon evicts or
                    loses in a restart is opened again, briefed again, by itself. After the
                    socket drops the demo connects again (8 attempts over about 90 s); a daemon
                    gone longer is said on stderr and in the summary, and the run exits 1.
  --cwd DIR         the session's folder on the daemon's host (default: this folder)
  --agent model:PROVIDER/MODEL
                    let a model drive Cleo directly, through pi's provider library (pi-ai,
                    installed beside this package): the villager's tools are its own tools.
                    The key comes from the provider's environment variable or pi's stored
                    login, and goes nowhere else. A model at an OpenAI-compatible server
                    (Ollama, llama.cpp, vLLM, LM Studio):
  --base-url URL      that server, e.g. http://127.0.0.1:11434/v1 (PROVIDER is then any name)
  --agent mcp[:NAME]
                    serve a villager (default cleo) to an MCP client over standard input and
                    output, in real time: the client starts this command as its stdio server and
                    calls the villager's tools as native tools (the story then goes to stderr).
                    To add it to pi 1.x:  pi mcp add aicc-cleo -- npx aicc demo --agent mcp:cleo
  -h, --help        this help

Ctrl-C ends the day early: the story and the summary (or the JSON) are still printed, and the
recording is written whole. A second Ctrl-C stops at once.

Exit codes: 0 success, 1 the run failed, 2 bad usage, 130 ended by Ctrl-C.
`;

interface DemoArgs {
  ticks?: number;
  seed?: number;
  json: boolean;
  record?: string;
  play?: string;
  agent?: string;
  /** With --agent pi-daemon:SOCKET: the daemon's socket. */
  daemonSocket?: string;
  /** With --agent pi-daemon:SOCKET: the session's folder (--cwd). */
  cwd?: string;
  /** With --agent model:PROVIDER/MODEL: the model, and --base-url. */
  model?: { provider: string; model: string; baseUrl?: string };
  /** With --agent mcp[:NAME]: the villager an MCP client plays over stdio. */
  mcp?: string;
  pi: PiAgentOptions;
}

/** Parses the options; a string is the one-line complaint about them. */
export function parseDemoArgs(argv: string[]): DemoArgs | string {
  const read = readArgs(argv, {
    options: {
      ticks: { type: 'string', expects: 'a whole number above 0' },
      seed: { type: 'string', expects: 'a whole number' },
      json: { type: 'boolean' },
      record: { type: 'string', expects: 'a file name' },
      play: { type: 'string', bare: 'cleo', expects: 'a villager' },
      agent: { type: 'string', multiple: true, expects: 'pi, pi:NAME, pi-daemon:SOCKET, model:PROVIDER/MODEL or mcp:NAME' },
      'base-url': { type: 'string', expects: 'a URL' },
      cwd: { type: 'string', expects: 'a folder' },
      'pi-bin': { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      'pi-agent-dir': { type: 'string' },
    },
  });
  if (typeof read === 'string') return read;
  const values = read.values as Record<string, string | undefined> & { json?: boolean; agent?: string[] };
  const args: DemoArgs = { json: values.json === true, pi: {} };
  for (const flag of ['ticks', 'seed'] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = wholeNumber(`--${flag}`, text, flag === 'ticks' ? 1 : 0);
    if (typeof n === 'string') return n;
    args[flag] = n;
  }
  if (values.record !== undefined) args.record = values.record;
  if (values.play !== undefined) {
    if (!(VILLAGERS as readonly string[]).includes(values.play)) return `--play: no villager called "${values.play}"; choose ${VILLAGERS.join(', ')}`;
    args.play = values.play;
  }
  // Each --agent in turn, as given: --agent mcp with a second --agent is refused below.
  for (const spec of values.agent ?? []) {
    const daemon = /^pi-daemon:(.+)$/.exec(spec);
    const model = /^model:([^/\s]+)\/(\S+)$/.exec(spec);
    const agent = daemon === null && model === null ? /^(pi|mcp)(?::([a-z]+))?$/.exec(spec) : null;
    if (model !== null) {
      args.agent = 'cleo';
      args.model = { provider: model[1]!, model: model[2]! };
    } else if (daemon !== null) {
      args.agent = 'cleo';
      args.daemonSocket = daemon[1]!;
    } else if (agent === null) {
      return `--agent expects pi, pi:NAME, pi-daemon:SOCKET, model:PROVIDER/MODEL or mcp:NAME, got ${JSON.stringify(spec)}`;
    } else {
      const name = agent[2] ?? 'cleo';
      if (!(VILLAGERS as readonly string[]).includes(name)) return `--agent: no villager called "${name}"; choose ${VILLAGERS.join(', ')}`;
      if (agent[1] === 'mcp') args.mcp = name;
      else args.agent = name;
    }
  }
  if (values.cwd !== undefined) args.cwd = values.cwd;
  if (values['base-url'] !== undefined) {
    if (args.model === undefined) return '--base-url goes with --agent model:PROVIDER/MODEL';
    if (!/^https?:\/\/\S+$/.test(values['base-url'])) return `--base-url expects an http(s) URL, got ${JSON.stringify(values['base-url'])}`;
    args.model.baseUrl = values['base-url'];
  }
  const piFlags = { '--pi-bin': 'piBin', '--provider': 'provider', '--model': 'model', '--pi-agent-dir': 'agentDir' } as const;
  for (const [flag, field] of Object.entries(piFlags)) {
    const text = values[flag.slice(2)];
    if (text !== undefined) args.pi[field] = text;
  }
  if (args.cwd !== undefined && args.daemonSocket === undefined) return '--cwd goes with --agent pi-daemon:SOCKET';
  const piFlag = (Object.keys(piFlags) as Array<keyof typeof piFlags>).find((flag) => args.pi[piFlags[flag]] !== undefined);
  if (piFlag !== undefined && (args.agent === undefined || args.model !== undefined)) return `${piFlag} goes with --agent pi or --agent pi-daemon:SOCKET`;
  if (args.daemonSocket !== undefined) {
    const hostOnly = (['--pi-bin', '--pi-agent-dir'] as const).find((flag) => args.pi[piFlags[flag]] !== undefined);
    if (hostOnly !== undefined) return `${hostOnly} is for --agent pi; a pi-daemon runs its own pi`;
    if ((args.pi.provider === undefined) !== (args.pi.model === undefined))
      return "with --agent pi-daemon:SOCKET, give --provider and --model together, or neither for the daemon's default model";
  }
  if (args.agent !== undefined && args.play === args.agent) return `--play and --agent cannot both take ${args.agent}`;
  if (args.mcp !== undefined) {
    if (args.agent !== undefined) return '--agent mcp serves one villager; it does not go with a second --agent';
    if (args.play !== undefined) return '--agent mcp speaks MCP on standard input and output; --play needs them too';
    if (args.json) return '--agent mcp speaks MCP on standard output; --json does not go with it';
  }
  if (args.play !== undefined && args.json) return '--play and --json do not go together';
  return args;
}

/** With a model agent, a state hash goes into the recording every this many ticks. */
const HASH_EVERY = 50;

/** What the command reads from its surroundings; tests pass their own. */
export interface DemoRuntime {
  /** Ends the day early, story and summary still printed (default: the first Ctrl-C, SIGINT). */
  signal?: AbortSignal;
  /** With --agent pi-daemon: how the client connects again after a drop (default: DaemonAgentOptions.reconnect's). */
  daemonReconnect?: DaemonAgentOptions['reconnect'];
}

/** The exit code after Ctrl-C: 128 + SIGINT's number, what a shell reports for an interrupted command. */
export const INTERRUPTED_EXIT_CODE = 130;

export async function demoCommand(argv: string[], io: CliIo, runtime: DemoRuntime = {}): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout.write(HELP);
    return 0;
  }
  const args = parseDemoArgs(argv);
  if (typeof args === 'string') {
    io.stderr.write(`aicc demo: ${args}; run \`aicc demo --help\`\n`);
    return 2;
  }
  if (args.play !== undefined && io.stdin === undefined) {
    io.stderr.write('aicc demo: --play needs a terminal or lines on standard input\n');
    return 2;
  }
  const interrupt = runtime.signal === undefined ? firstCtrlC() : { signal: runtime.signal, release: () => {} };
  try {
    return await runDemo(args, io, interrupt.signal, runtime.daemonReconnect);
  } finally {
    interrupt.release();
  }
}

/** Aborts on the first Ctrl-C only: a second one finds Node's default and ends the process at once. */
function firstCtrlC(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once('SIGINT', abort);
  return { signal: controller.signal, release: () => void process.off('SIGINT', abort) };
}

async function runDemo(args: DemoArgs, io: CliIo, signal: AbortSignal, daemonReconnect?: DaemonAgentOptions['reconnect']): Promise<number> {
  const recording: string[] = [];
  const bar = progressBar(io.stderr as ProgressStream);
  const options: VillageOptions = { progress: bar, signal };
  if (args.seed !== undefined) options.seed = args.seed;
  if (args.ticks !== undefined) options.ticks = args.ticks;
  if (args.record !== undefined) options.record = (line) => recording.push(line);
  if (args.play !== undefined) options.play = { character: args.play, io: { lines: io.stdin!, write: (text) => io.stdout.write(text) } };
  // Loaded only when asked for: pi, the gateway and ws.
  const agents = args.agent === undefined ? undefined : await import('../pi/piAgent.js');
  const pi =
    args.agent === undefined
      ? undefined
      : args.model !== undefined
        ? await (await import('./modelAgent.js')).startModelAgent(args.model)
        : args.daemonSocket !== undefined
          ? await agents!.startDaemonAgent({
              socketPath: args.daemonSocket,
              label: args.agent,
              ...(args.cwd !== undefined && { cwd: args.cwd }),
              ...(daemonReconnect !== undefined && { reconnect: daemonReconnect }),
              ...(args.pi.provider !== undefined && { provider: args.pi.provider }),
              ...(args.pi.model !== undefined && { model: args.pi.model }),
            })
          : await agents!.startPiAgent({ ...args.pi, label: args.agent });
  if (pi !== undefined) options.pilot = { character: args.agent!, backend: pi.backend };
  if (args.model !== undefined) {
    // The recording names the model and keeps its cassette and the world's state hashes: `aicc replay` re-runs the day from them.
    options.recordOptions = { pilot: { character: args.agent!, agent: `model:${args.model.provider}/${args.model.model}` } };
    options.hashEvery = HASH_EVERY;
  }
  // Said at once, not only in the summary: a person watching the story sees why the villager went quiet.
  if (pi !== undefined && typeof pi.backend !== 'function')
    pi.backend.onGone?.((reason) =>
      io.stderr.write(`aicc demo: the agent driving ${args.agent} is gone for good (${reason}); it idles for the rest of the day\n`),
    );
  // With --agent mcp standard output is the MCP channel: everything for people goes to stderr.
  const out = args.mcp === undefined ? io.stdout : io.stderr;
  if (args.mcp !== undefined) {
    const { stdioGuest, mcpConfigLines } = await import('./mcpGuest.js');
    options.guest = await stdioGuest(args.mcp);
    if (io.stderr.isTTY === true)
      io.stderr.write(
        `aicc demo: serving ${args.mcp} to an MCP client on stdio. Add it to a client:\n${mcpConfigLines(args.mcp)
          .map((line) => `  ${line}`)
          .join('\n')}\n`,
      );
  }
  let run;
  try {
    run = await runVillage(options);
  } finally {
    await pi?.close();
  }
  bar.finish();
  if (args.record !== undefined) writeFileSync(args.record, recording.join(''));
  if (args.json) {
    const { seed, maxTicks, stop, story, summary } = run;
    io.stdout.write(
      `${JSON.stringify({ seed, ticks: run.result.ticks, maxTicks, stop, story, summary, ...(run.pilot !== undefined && { pilot: run.pilot.costs }), ...(run.pilotLost !== undefined && { agentLost: run.pilotLost }), wall: { ms: run.result.wallMs, ticksPerSecond: run.result.ticksPerSecond } })}\n`,
    );
  } else out.write(`${run.story.join('\n')}\n\n${run.summaryLines.join('\n')}\n`);
  if (run.recordingProblems.length > 0) {
    io.stderr.write(`aicc demo: the recording has lines that break the schema (a bug): ${run.recordingProblems[0]}\n`);
    return 1;
  }
  if (run.stop === 'interrupted') return INTERRUPTED_EXIT_CODE;
  // The agent asked for did not drive its villager to the end of the day: the run failed.
  return run.pilotLost === undefined ? 0 : 1;
}
