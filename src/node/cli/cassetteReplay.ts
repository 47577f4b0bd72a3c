// `aicc replay` of a recording made with a model backend: the day is run again — world, scripted
// villagers, pilots and model backends (one villager's, or several: the header's `pilot` or `pilots`) — with every model turn answered from the recording's cassette
// at the tick it was answered, and zero model calls. The replay writes its own recording; every
// line of it must equal the original's (messages, decisions, exchanges, state hashes). A request
// that differs from the recorded one (a new briefing, a new digest, another library version) stops
// the replay there and is named: tick, character, model turn, the recording's line, and a short diff.

import { Cassette, type Divergence } from '../../agent/model/cassette.js';
import type { ModelReply, ModelRequest } from '../../agent/model/modelPort.js';
import type { Recording } from '../../recording/recording.js';
import { runVillage, type GuestJoin, type PilotBackend } from '../../worlds/village/run.js';
import { modelAgentOf } from './modelAgent.js';

export interface CassetteReplay {
  /** The replayed recording's lines, and the index of the first that differs from the original (undefined: none). */
  lines: string[];
  firstDifference?: { line: number; recorded: string | undefined; replayed: string | undefined };
  divergence?: Divergence;
  story: string[];
  /** Model turns answered from the cassette; recorded turns the replay never asked for. */
  served: number;
  unused: number;
  hashes: number;
}

/** Whether a recording holds a model run that replays from its cassette. */
export function hasCassette(recording: Recording): boolean {
  return recording.exchanges.length > 0 && pilotsOf(recording).length > 0;
}

/** A fork: the recorded day rebuilt to tick `until` from its cassette, then handed to `then`. */
export interface ForkOptions {
  until: number;
  /** The agent from there: a pilot backend (another model, pi), the villager's scripted role, or a program outside (an MCP client). */
  handTo: PilotBackend | 'scripted' | { guest: GuestJoin };
  /** What the fork's header says of its agent and its parent. */
  agent: string;
  parent: string;
  /** The fork runs in real time after the handover (a live model thinks in real time). */
  live: boolean;
}

export interface ForkResult extends CassetteReplay {
  /** The original's state hash at `until`, if it recorded one, and the fork's there. */
  hashAtFork?: { recorded: string; forked: string | undefined };
  /**
   * In a village of several model-driven villagers, where the recorded answers of those not handed
   * over stopped fitting after the fork (the day went another way; `character`'s request first):
   * they wait from there.
   */
  cassetteEnded?: { character: string; tick: number };
}

export async function replayFromCassette(recording: Recording, originalLines: readonly string[], fork?: ForkOptions): Promise<ForkResult> {
  const pilots = pilotsOf(recording);
  const { seed, ticks, options } = recording.header;
  const cassette = new Cassette(
    recording.exchanges.map(({ tick, line, character, exchange }) => ({
      character,
      line,
      settledTick: tick,
      n: exchange.n,
      hash: exchange.hash,
      sentTick: exchange.sentTick,
      ...(exchange.tokenTick !== undefined && { tokenTick: exchange.tokenTick }),
      ...(exchange.request !== undefined && { request: exchange.request as unknown as ModelRequest }),
      ...(exchange.reply !== undefined && { reply: exchange.reply as unknown as ModelReply }),
      ...(exchange.error !== undefined && { error: exchange.error }),
      ...(exchange.aborted === true && { aborted: true as const }),
    })),
  );
  // A model agent per piloted villager, each answered from its own exchanges.
  const agents = pilots.map((pilot) => modelAgentOf((context) => cassette.turn(pilot.character, context.tick), pilot.agent ?? 'cassette', pilot.character));
  const lines: string[] = [];
  const hashEvery = typeof options?.['hashEvery'] === 'number' ? options['hashEvery'] : undefined;
  const recordOptions =
    fork === undefined
      ? options
      : {
          ...options,
          // The first piloted villager is the one handed over.
          ...(Array.isArray(options?.['pilots'])
            ? { pilots: pilots.map((pilot, i) => (i === 0 ? { character: pilot.character, agent: fork.agent } : pilot)) }
            : { pilot: { character: pilots[0]!.character, agent: fork.agent } }),
          parent: { recording: fork.parent, tick: fork.until },
        };
  // The day starts at tick 0: an answer the recording got before the first tick is due at once.
  await cassette.release(0);
  const run = await runVillage({
    seed,
    ticks,
    record: (line) => lines.push(line.replace(/\n$/, '')),
    pilots: pilots.map((pilot, i) => ({ character: pilot.character, backend: agents[i]!.backend })),
    ...(recordOptions !== undefined && { recordOptions }),
    ...(hashEvery !== undefined && { hashEvery }),
    // Between ticks, the answers the recording got at this tick; then everything they set off settles before the next.
    // After a fork's handover, a live model's time again.
    pace: async (tick) => {
      if (fork?.live === true && tick > fork.until) return new Promise((resolve) => setTimeout(resolve, 100));
      await cassette.release(tick);
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    },
    ...(fork === undefined ? { stopAt: recording.end.tick } : { handover: { tick: fork.until, backend: fork.handTo } }),
  });
  for (const agent of agents) await agent.close();
  if (fork !== undefined) {
    const recorded = recording.hashes.find((line) => line.tick === fork.until);
    const forked = lines
      .map((line) => JSON.parse(line) as { tick?: number; hash?: string })
      .find((line) => line.hash !== undefined && line.tick === fork.until);
    // Up to the handover, the fork must be the original line for line (the header names the fork's agent and parent: skipped).
    const before = (line: string) => (JSON.parse(line) as { tick?: number }).tick! < fork.until;
    const mine = lines.slice(1).filter(before);
    const theirs = originalLines.slice(1).filter(before);
    const at = mine.findIndex((line, i) => line !== theirs[i]);
    return {
      lines,
      ...(at >= 0 && { firstDifference: { line: at + 2, recorded: theirs[at], replayed: mine[at] } }),
      // After the handover the day goes another way: another villager's recorded answers stop fitting there, which is no fault of the replay.
      ...(cassette.divergence !== undefined &&
        (cassette.divergence.tick < fork.until
          ? { divergence: cassette.divergence }
          : { cassetteEnded: { character: cassette.divergence.character, tick: cassette.divergence.tick } })),
      ...(recorded !== undefined && { hashAtFork: { recorded: recorded.hash, forked: forked?.hash } }),
      story: run.story,
      served: cassette.served,
      unused: cassette.unused,
      hashes: recording.hashes.length,
    };
  }
  // A recording cut short is compared up to its last whole line: what the replay wrote after it has nothing to match.
  const compared = recording.cutShort === undefined ? lines : lines.slice(0, originalLines.length);
  const at = compared.findIndex((line, i) => line !== originalLines[i]);
  const differs = at >= 0 ? at : compared.length !== originalLines.length ? compared.length : -1;
  return {
    lines,
    ...(differs >= 0 && { firstDifference: { line: differs + 1, recorded: originalLines[differs], replayed: lines[differs] } }),
    ...(cassette.divergence !== undefined && { divergence: cassette.divergence }),
    story: run.story,
    served: cassette.served,
    unused: cassette.unused,
    hashes: recording.hashes.length,
  };
}

/** The villager a fork hands over: the recording's first piloted one. */
export function handedOver(recording: Recording): string {
  return pilotsOf(recording)[0]!.character;
}

type RecordedPilot = { character: string; agent?: string };

/** The piloted villagers the header names: `pilots` (several), else `pilot` (one); those without a character id are left out. */
function pilotsOf(recording: Recording): RecordedPilot[] {
  const options = recording.header.options;
  const listed = Array.isArray(options?.['pilots']) ? options['pilots'] : options?.['pilot'] !== undefined ? [options['pilot']] : [];
  return listed.filter(
    (pilot): pilot is RecordedPilot =>
      pilot !== null && typeof pilot === 'object' && !Array.isArray(pilot) && typeof (pilot as { character?: unknown }).character === 'string',
  );
}
