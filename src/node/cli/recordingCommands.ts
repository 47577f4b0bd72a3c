// `aicc validate FILE` and `aicc replay FILE`: check a recording, and re-run its world from it.

import { readFileSync } from 'node:fs';
import { parseRecording, RecordingError, type Recording } from '../../recording/recording.js';
import { replay } from '../../recording/replay.js';
import { readArgs } from './args.js';
import type { CliIo } from './main.js';
import { worldBuilders } from './replayWorlds.js';
import { hasCassette, replayFromCassette } from './cassetteReplay.js';

const VALIDATE_HELP = `aicc validate — check a recording line by line

Usage: aicc validate <recording.ndjson>

Checks the header, every line's shape, every AICC message against schemas/aicc.schema.json, and
that the recording is whole: a file cut off mid-line or without its end line (a run that was
killed, a truncated copy) is invalid.
Exit codes: 0 valid, 1 invalid (the first bad line is named), 2 bad usage or unreadable file.
`;

const REPLAY_HELP = `aicc replay — re-run a recorded world with no agent and compare

Usage: aicc replay <recording.ndjson>

Builds the recorded world again from its header (world, seed), feeds it the recorded agent messages
at the recorded ticks, and compares every message the bridge sends with the recording.

A recording made with a model agent (aicc demo --agent model:… --record) holds its model's
exchanges (a cassette): then the day itself runs again — world, villagers, pilot and model backend —
each model turn answered from the cassette at the recorded tick, with zero model calls. It prints
the story, and compares every line of the new recording with the original (messages, decisions,
exchanges, state hashes); a request that differs from the recorded one (a changed briefing or
digest) is named: tick, character, model turn, the recording's line, and a short diff.
Exit codes: 0 everything matched, 1 a mismatch or a bad recording, 2 bad usage or unreadable file.
`;

/** Reads and parses the one file argument; prints the problem and returns an exit code if it can't. */
function load(command: string, argv: string[], help: string, io: CliIo): { recording: Recording; text: string } | number {
  const read = readArgs(argv, { options: { help: { type: 'boolean', short: 'h' } }, positionals: true });
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
    return { recording: parseRecording(text), text };
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    io.stderr.write(`aicc ${command}: ${file}:${error.line}: ${error.reason}\n`);
    return 1;
  }
}

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
  const { recording, text } = loaded;
  const build = worldBuilders[recording.header.world];
  if (build === undefined) {
    io.stderr.write(`aicc replay: no world called "${recording.header.world}" to rebuild; known: ${Object.keys(worldBuilders).join(', ')}\n`);
    return 1;
  }
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
  const original = text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
  const result = await replayFromCassette(recording, original);
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
    io.stdout.write(`first line that differs: ${line}\n  recorded: ${clipLine(recorded)}\n  replayed: ${clipLine(replayed)}\n`);
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
