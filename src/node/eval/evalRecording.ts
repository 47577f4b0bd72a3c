// An eval episode's recording: what it takes to play the episode again with no model — the job
// (world, seed, params, agent, roles, ticks), every model exchange of the agent under test (its
// cassette), and the state hash it ended with. One JSON line each, written once the episode is over.
// `verifyEpisode` replays it: the world's policies as they are, the model's answers from the
// cassette, and the ending state hash compared with the recorded one and the results file's. A
// policy's episode needs no file: its results line holds the job and the hash.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CapsuleError, messageOf } from '../../base/errors.js';
import { Cassette, type CassetteEntry, type ModelExchange } from '../../agent/model/cassette.js';
import { modelAgent, policyAgent } from '../../research/evalAgents.js';
import { runEvalEpisode } from '../../research/evalEpisode.js';
import type { EvalEpisode } from '../../research/evalResult.js';
import { episodeKey } from '../../research/sweepPlan.js';
import type { Params, World } from '../../research/world.js';
import { parseAgentSpec } from './agentSpec.js';

export const EVAL_RECORDING_FORMAT = 'aicc-eval-recording/1';

/** The first line: the job, as runEvalEpisode takes it. */
export interface EvalRecordingHeader {
  format: typeof EVAL_RECORDING_FORMAT;
  world: string;
  seed: number;
  params: Params;
  agent: string;
  agentSpec: string;
  roles: string[];
  maxTicks?: number;
  hashEvery?: number;
}

export interface EvalRecording {
  header: EvalRecordingHeader;
  exchanges: CassetteEntry[];
  /** The last line: how the episode ended. */
  end: { stateHash: string; ticks: number };
}

/** Writes a recording whole (a temporary file renamed into place: a reader never sees half of one). */
export function writeEvalRecording(path: string, recording: EvalRecording): void {
  const lines = [
    JSON.stringify(recording.header),
    ...recording.exchanges.map((exchange) => JSON.stringify({ type: 'exchange', ...exchange })),
    JSON.stringify({ type: 'end', ...recording.end }),
  ];
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${lines.join('\n')}\n`);
  renameSync(temporary, path);
}

/** Reads a recording; a file that is not one throws an AICC_INVALID_OPTION naming the line. */
export function readEvalRecording(path: string): EvalRecording {
  const bad = (line: number, why: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `${path}:${line}: ${why}; it is not an eval recording (aicc eval writes them)`);
  };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CapsuleError('AICC_INVALID_OPTION', `${path}: cannot read the recording: ${messageOf(error)}`);
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const parsed = lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return bad(index + 1, 'not a JSON line');
    }
  });
  const header = parsed[0] as Partial<EvalRecordingHeader> | undefined;
  if (header?.format !== EVAL_RECORDING_FORMAT) return bad(1, `the first line must say format ${JSON.stringify(EVAL_RECORDING_FORMAT)}`);
  if (typeof header.world !== 'string' || !Number.isSafeInteger(header.seed) || typeof header.agentSpec !== 'string' || !Array.isArray(header.roles))
    return bad(1, 'the header needs world, seed, params, agent, agentSpec and roles');
  const last = parsed.at(-1);
  if (parsed.length < 2 || last?.['type'] !== 'end' || typeof last['stateHash'] !== 'string')
    return bad(parsed.length, 'the last line must be the end, with the state hash');
  const exchanges: CassetteEntry[] = [];
  parsed.slice(1, -1).forEach((line, index) => {
    const { type, ...exchange } = line;
    if (type !== 'exchange' || typeof exchange['character'] !== 'string' || typeof exchange['hash'] !== 'string') bad(index + 2, 'expected a model exchange');
    exchanges.push({ ...(exchange as unknown as CassetteEntry), line: index + 2 });
  });
  return { header: header as EvalRecordingHeader, exchanges, end: { stateHash: last['stateHash'] as string, ticks: Number(last['ticks']) } };
}

/** A model exchange as the recording keeps it: with the tick it settled at. */
export function recordedExchange(exchange: ModelExchange, tick: number): CassetteEntry {
  return { ...exchange, settledTick: tick };
}

/** Why a recording did not replay to its episode, or undefined when it did. */
export async function verifyEpisode(world: World, recording: EvalRecording, episode: Pick<EvalEpisode, 'stateHash'>): Promise<string | undefined> {
  const { header } = recording;
  if (header.world !== world.name) return `the recording is of the world ${JSON.stringify(header.world)}, not ${JSON.stringify(world.name)}`;
  if (recording.end.stateHash !== episode.stateHash)
    return `the recording ends with state ${recording.end.stateHash}, the results file says ${episode.stateHash}`;
  const spec = parseAgentSpec(header.agentSpec);
  const cassette = new Cassette(recording.exchanges);
  // Every answer may be given at once: an eval's world waits for each turn, so none depends on the tick it arrives at.
  await cassette.release(Number.MAX_SAFE_INTEGER);
  const agent = spec.kind === 'policy' ? policyAgent(spec.policy) : modelAgent({ turnOf: (seat) => cassette.turn(seat.character, seat.tick) });
  let replayed: EvalEpisode;
  try {
    replayed = await runEvalEpisode(world, {
      seed: header.seed,
      params: header.params,
      agent,
      agentName: header.agent,
      agentSpec: header.agentSpec,
      roles: header.roles,
      ...(header.maxTicks !== undefined && { maxTicks: header.maxTicks }),
    });
  } catch (error) {
    return `the replay failed: ${messageOf(error)}`;
  }
  if (cassette.divergence !== undefined) return `the replay asked the model something else at ${cassette.divergence.where} (tick ${cassette.divergence.tick})`;
  if (cassette.unused > 0) return `the replay left ${cassette.unused} recorded model exchanges unasked`;
  if (replayed.stateHash !== recording.end.stateHash) return `the replay ended with state ${replayed.stateHash}, the recording with ${recording.end.stateHash}`;
  return undefined;
}

/**
 * The recording a policy's episode needs, from its results line: the job, no exchanges, and its
 * ending hash. As many ticks as it ran: a world that stopped early stops at the same tick again.
 */
function lineRecording(episode: EvalEpisode): EvalRecording {
  return {
    header: {
      format: EVAL_RECORDING_FORMAT,
      world: episode.world,
      seed: episode.seed,
      params: episode.params,
      agent: episode.agent,
      agentSpec: episode.agentSpec,
      roles: episode.roles,
      maxTicks: episode.ticks,
    },
    exchanges: [],
    end: { stateHash: episode.stateHash, ticks: episode.ticks },
  };
}

/** What `verifyResults` found. */
export interface VerifyReport {
  /** Episodes replayed from their recordings. */
  checked: number;
  matched: number;
  /** Each episode that did not replay to its hash, and why. */
  mismatches: Array<{ key: string; why: string }>;
}

/**
 * Replays `sample` episodes of a results file from their recordings (spread evenly over the file's
 * episodes that have one) and writes each one's verdict into its line (`verified`), the file
 * rewritten whole and renamed into place.
 */
export async function verifyResults(world: World, out: string, episodes: readonly EvalEpisode[], sample: number): Promise<VerifyReport> {
  // A model's episode replays from its recording; a policy's from its results line alone.
  const recorded = episodes.filter((episode) => episode.recording !== undefined || parseAgentSpec(episode.agentSpec).kind === 'policy');
  const step = recorded.length / Math.max(1, Math.min(sample, recorded.length));
  const chosen = new Set<EvalEpisode>();
  for (let at = 0; chosen.size < Math.min(sample, recorded.length); at += step) chosen.add(recorded[Math.floor(at)]!);
  const report: VerifyReport = { checked: 0, matched: 0, mismatches: [] };
  const verdicts = new Map<EvalEpisode, boolean>();
  for (const episode of chosen) {
    let why: string | undefined;
    try {
      const recording = episode.recording !== undefined ? readEvalRecording(join(dirname(out), episode.recording)) : lineRecording(episode);
      why = await verifyEpisode(world, recording, episode);
    } catch (error) {
      why = messageOf(error);
    }
    report.checked++;
    if (why === undefined) report.matched++;
    else report.mismatches.push({ key: episodeKey(episode), why });
    verdicts.set(episode, why === undefined);
  }
  const lines = episodes.map((episode) => JSON.stringify(verdicts.has(episode) ? { ...episode, verified: verdicts.get(episode) } : episode));
  const temporary = `${out}.${process.pid}.verify`;
  writeFileSync(temporary, `${lines.join('\n')}\n`);
  renameSync(temporary, out);
  return report;
}
