// `aicc validate FILE` and `aicc replay FILE`: check a recording, and re-run its world from it.

import { createHash } from 'node:crypto';
import { aroundFirstDifference } from '../../agent/model/cassette.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseRecording, RecordingError, type Recording } from '../../recording/recording.js';
import { replay } from '../../recording/replay.js';
import { readArgs, wholeNumber } from './args.js';
import { startModelAgent } from './modelAgent.js';
import type { CliIo } from './cliIo.js';
import { worldBuilders } from './replayWorlds.js';
import { handedOver, hasCassette, replayFromCassette, type ForkOptions } from './cassetteReplay.js';
import type { PilotBackend } from '../../worlds/village/run.js';

const VALIDATE_HELP = `aicc validate — check a recording line by line

Usage: aicc validate <recording.ndjson>

Checks the header, every line's shape, every AICC message against schemas/aicc.schema.json, and
that the recording is whole: a file cut off mid-line or without its end line (a run that was
killed, a truncated copy) is invalid (\`aicc replay\` still replays it up to its last whole line).
Exit codes: 0 valid, 1 invalid (the first bad line is named), 2 bad usage or unreadable file.
`;

const REPLAY_HELP = `aicc replay — re-run a recorded world with no agent and compare

Usage: aicc replay <recording.ndjson>

Builds the recorded world again from its header (world, seed), feeds it the recorded agent messages
at the recorded ticks, and compares every message the bridge sends with the recording.
A recording cut short (a run that was killed: no end line, or a last line cut off) is replayed up
to its last whole line; stderr says where it stops.

A recording made with a model agent (aicc demo --agent model:… --record) holds its model's
exchanges (a cassette): then the day itself runs again — world, villagers, pilot and model backend —
each model turn answered from the cassette at the recorded tick, with zero model calls. It prints
the story, and compares every line of the new recording with the original (messages, decisions,
exchanges, state hashes); a request that differs from the recorded one (a changed briefing or
digest) is named: tick, character, model turn, the recording's line, and a short diff.

Fork a model run at a tick:
  --until N         rebuild the day to tick N from the cassette (its state hash there is checked
                    against the recording's, when it has one at N), then hand the villager over:
  --then SPEC       who plays the villager from there, in real time:
                      scripted              the villager's own scripted role
                      model:PROVIDER/MODEL  a live model through pi-ai (--base-url URL for an
                                            OpenAI-compatible server; --system-prompt TEXT to
                                            try another prompt)
                      pi                    pi --mode rpc behind a private gateway, with your own
                                            pi configuration (--pi-bin PATH: another pi)
                      mcp                   an MCP client that started this command as its stdio
                                            server (stdout is then MCP's; the story goes to stderr)
  --record FILE     the fork's own recording; its header names its parent and the tick
Exit codes: 0 everything matched, 1 a mismatch or a bad recording, 2 bad usage or unreadable file.
`;

/** Reads and parses the one file argument; prints the problem and returns an exit code if it can't. */
function load(command: string, argv: string[], help: string, io: CliIo): { recording: Recording; text: string; values: Record<string, unknown> } | number {
  const read = readArgs(argv, {
    options: {
      help: { type: 'boolean', short: 'h' },
      ...(command === 'replay' && {
        until: { type: 'string', expects: 'a tick' },
        // biome-ignore lint/suspicious/noThenProperty: the --then flag's spec, never awaited
        then: { type: 'string', expects: 'scripted, model:PROVIDER/MODEL, pi or mcp' },
        'base-url': { type: 'string', expects: 'a URL' },
        'system-prompt': { type: 'string', expects: 'a system prompt' },
        'pi-bin': { type: 'string', expects: 'the pi executable' },
        record: { type: 'string', expects: 'a file name' },
      }),
    },
    positionals: true,
  });
  if (typeof read !== 'string' && read.values.help === true) {
    io.stdout.write(help);
    return 0;
  }
  const [file, ...extra] = typeof read === 'string' ? [] : read.positionals;
  if (file === undefined || extra.length > 0) {
    io.stderr.write(`aicc ${command}: ${typeof read === 'string' ? `${read}; ` : ''}expected one recording file; run \`aicc ${command} --help\`\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.stderr.write(`aicc ${command}: cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}\n`);
    return 2;
  }
  try {
    // Replay takes a killed run's recording up to its last whole line (the run a user most wants to see); validate does not.
    const recording = parseRecording(text, { cutShort: command === 'replay' ? 'up-to-last-whole-line' : 'refuse' });
    if (recording.cutShort !== undefined) {
      const { line, reason } = recording.cutShort;
      io.stderr.write(`aicc replay: ${file}:${line}: ${reason}; replaying it up to its last whole line (line ${line - 1}, tick ${recording.end.tick})\n`);
    }
    return { recording, text, values: typeof read === 'string' ? {} : read.values };
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    const cutShort = error.cutShort ? '; `aicc replay` replays it up to its last whole line' : '';
    io.stderr.write(`aicc ${command}: ${file}:${error.line}: ${error.reason}${cutShort}\n`);
    return 1;
  }
}

/** The file's whole lines: every line a newline ends (a line cut off after the last one is not one). */
const wholeLines = (text: string): string[] => text.split('\n').slice(0, -1);

export async function validateCommand(argv: string[], io: CliIo): Promise<number> {
  const loaded = load('validate', argv, VALIDATE_HELP, io);
  if (typeof loaded === 'number') return loaded;
  const { recording } = loaded;
  const characters = new Set(recording.entries.map((e) => e.character));
  const { world, seed, ticks } = recording.header;
  io.stdout.write(
    `${argv[0]}: valid — ${world}, seed ${seed}, ${recording.end.tick} of ${ticks} ticks, ${recording.entries.length} messages of ${characters.size} characters${recording.decisions.length > 0 ? `, ${recording.decisions.length} pilot decisions` : ''}${recording.exchanges.length > 0 ? `, ${recording.exchanges.length} model exchanges` : ''}${recording.hashes.length > 0 ? `, ${recording.hashes.length} state hashes` : ''}\n`,
  );
  return 0;
}

export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const loaded = load('replay', argv, REPLAY_HELP, io);
  if (typeof loaded === 'number') return loaded;
  const { recording, text, values } = loaded;
  const build = worldBuilders[recording.header.world];
  if (build === undefined) {
    io.stderr.write(`aicc replay: no world called "${recording.header.world}" to rebuild; known: ${Object.keys(worldBuilders).join(', ')}\n`);
    return 1;
  }
  if (values['until'] !== undefined || values['then'] !== undefined) return forkCommand(recording, text, values, argv[0]!, io);
  if (hasCassette(recording)) return cassetteReplayCommand(recording, text, io);
  const report = await replay(recording, build);
  for (const type of Object.keys(report.compared).sort() as Array<keyof typeof report.compared>) {
    io.stdout.write(`${type.padEnd(16)} ${report.agreed[type] ?? 0}/${report.compared[type]} matched\n`);
  }
  for (const mismatch of report.mismatches) {
    io.stdout.write(`first difference for ${mismatch.character}, message ${mismatch.index + 1}:\n`);
    io.stdout.write(`  recorded: ${JSON.stringify(mismatch.expected) ?? '(nothing)'}\n`);
    io.stdout.write(`  replayed: ${JSON.stringify(mismatch.actual) ?? '(nothing)'}\n`);
  }
  io.stdout.write(report.matched ? 'replay: every message matched\n' : 'replay: MISMATCH\n');
  return report.matched ? 0 : 1;
}

/** A model run: the day again from its cassette, with no model; every line compared. */
async function cassetteReplayCommand(recording: Recording, text: string, io: CliIo): Promise<number> {
  const result = await replayFromCassette(recording, wholeLines(text));
  io.stdout.write(`${result.story.join('\n')}\n\n`);
  io.stdout.write(
    `model turns: ${result.served} answered from the cassette, 0 model calls${result.unused > 0 ? `, ${result.unused} recorded turns never asked for` : ''}\n`,
  );
  if (result.divergence !== undefined) {
    const d = result.divergence;
    io.stdout.write(
      `first divergence: tick ${d.tick}, ${d.character}, model turn ${d.n}${d.line !== undefined ? ` (recording line ${d.line})` : ''}: ${d.where} differs\n  recorded: ${d.recorded}\n  replayed: ${d.replayed}\n`,
    );
  }
  if (result.firstDifference !== undefined) {
    const { line, recorded, replayed } = result.firstDifference;
    // Around where the two lines part: their shared opening (a tick, a character, a long request) says nothing.
    const shown =
      recorded === undefined || replayed === undefined
        ? { recorded: clipLine(recorded), replayed: clipLine(replayed) }
        : aroundFirstDifference(recorded, replayed, 100);
    io.stdout.write(`first line that differs: ${line}\n  recorded: ${shown.recorded}\n  replayed: ${shown.replayed}\n`);
    io.stdout.write('replay: MISMATCH\n');
    return 1;
  }
  io.stdout.write(`replay: every line matched (${result.lines.length} lines, ${result.hashes} state hashes equal)\n`);
  return 0;
}

function clipLine(line: string | undefined): string {
  if (line === undefined) return '(nothing)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `--until N --then SPEC`: the day to tick N from the cassette, then another agent. */
async function forkCommand(recording: Recording, text: string, values: Record<string, unknown>, file: string, io: CliIo): Promise<number> {
  const usage = (problem: string): number => {
    io.stderr.write(`aicc replay: ${problem}; run \`aicc replay --help\`\n`);
    return 2;
  };
  if (typeof values['until'] !== 'string' || typeof values['then'] !== 'string') return usage('--until and --then go together');
  const until = wholeNumber('--until', values['until'], 1, recording.end.tick);
  if (typeof until === 'string') return usage(until);
  if (!hasCassette(recording)) return usage('a fork needs a recording made with a model agent (aicc demo --agent model:… --record): this one has no cassette');
  const spec = values['then'];
  const model = /^model:([^/\s]+)\/(\S+)$/.exec(spec);
  if (spec !== 'scripted' && spec !== 'pi' && spec !== 'mcp' && model === null)
    return usage(`--then expects scripted, model:PROVIDER/MODEL, pi or mcp, got ${JSON.stringify(spec)}`);
  const baseUrl = typeof values['base-url'] === 'string' ? values['base-url'] : undefined;
  const systemPrompt = typeof values['system-prompt'] === 'string' ? values['system-prompt'] : undefined;
  const piBin = typeof values['pi-bin'] === 'string' ? values['pi-bin'] : undefined;
  if ((baseUrl !== undefined || systemPrompt !== undefined) && model === null)
    return usage(`--${baseUrl !== undefined ? 'base-url' : 'system-prompt'} goes with --then model:PROVIDER/MODEL`);
  if (piBin !== undefined && spec !== 'pi') return usage('--pi-bin goes with --then pi');
  const character = handedOver(recording);
  // With an MCP client, standard output is the MCP channel: everything for people goes to stderr.
  const out = spec === 'mcp' ? io.stderr : io.stdout;
  let live: { backend: PilotBackend; close(): Promise<void> } | undefined;
  let handTo: ForkOptions['handTo'] = 'scripted';
  try {
    if (model !== null) {
      live = await startModelAgent({
        provider: model[1]!,
        model: model[2]!,
        ...(baseUrl !== undefined && { baseUrl }),
        ...(systemPrompt !== undefined && { systemPrompt }),
      });
      handTo = live.backend;
    } else if (spec === 'pi') {
      live = await (await import('../pi/piAgent.js')).startPiAgent({ ...(piBin !== undefined && { piBin }), label: character });
      handTo = live.backend;
    } else if (spec === 'mcp') handTo = { guest: (await (await import('./mcpGuest.js')).stdioGuest(character)).join };
  } catch (error) {
    io.stderr.write(`aicc replay: --then ${spec} could not start: ${(error as Error).message}\n`);
    return 1;
  }
  const original = wholeLines(text);
  let result: Awaited<ReturnType<typeof replayFromCassette>>;
  try {
    result = await replayFromCassette(recording, original, {
      until,
      handTo,
      agent: spec,
      parent: `${basename(file)} sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
      live: spec !== 'scripted',
    });
  } finally {
    await live?.close();
  }
  out.write(`${result.story.join('\n')}\n\n`);
  if (typeof values['record'] === 'string') writeFileSync(values['record'], `${result.lines.join('\n')}\n`);
  if (result.divergence !== undefined || result.firstDifference !== undefined) {
    out.write(
      `fork: the day did not replay the same up to tick ${until}${result.divergence ? ` (${result.divergence.where} differs at tick ${result.divergence.tick})` : ` (line ${result.firstDifference!.line} differs)`}\n`,
    );
    return 1;
  }
  const hash = result.hashAtFork;
  if (hash !== undefined && hash.recorded !== hash.forked) {
    out.write(`fork: the state hash at tick ${until} is ${hash.forked ?? '(none)'}, the recording's ${hash.recorded}\n`);
    return 1;
  }
  if (result.cassetteEnded !== undefined)
    out.write(
      `fork: the recorded answers stopped fitting at tick ${result.cassetteEnded.tick} (${result.cassetteEnded.character}'s request first: the day went another way after the fork); the villagers not handed over waited from there\n`,
    );
  out.write(
    `fork: tick ${until} rebuilt from the cassette (${result.served} model turns, 0 model calls)${hash !== undefined ? `, state hash ${hash.recorded} as recorded` : ', every line before it as recorded'}; then ${spec}\n`,
  );
  return 0;
}
