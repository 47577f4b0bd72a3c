// `aicc replay` of a recording made with a model backend: the day is run again — world, scripted
// villagers, pilot and model backend — with every model turn answered from the recording's cassette
// at the tick it was answered, and zero model calls. The replay writes its own recording; every
// line of it must equal the original's (messages, decisions, exchanges, state hashes). A request
// that differs from the recorded one (a new briefing, a new digest, another library version) stops
// the replay there and is named: tick, character, model turn, the recording's line, and a short diff.

import { Cassette, type Divergence } from '../../agent/model/cassette.js';
import type { ModelReply, ModelRequest } from '../../agent/model/modelPort.js';
import type { Recording } from '../../recording/recording.js';
import { runVillage, type PilotBackend } from '../../worlds/village/run.js';
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
  return recording.exchanges.length > 0 && typeof pilotOf(recording)?.character === 'string';
}

/** A fork: the recorded day rebuilt to tick `until` from its cassette, then handed to `then`. */
export interface ForkOptions {
  until: number;
  /** The agent from there: a pilot backend (another model), or the villager's scripted role. */
  handTo: PilotBackend | 'scripted';
  /** What the fork's header says of its agent and its parent. */
  agent: string;
  parent: string;
  /** The fork runs in real time after the handover (a live model thinks in real time). */
  live: boolean;
}

export interface ForkResult extends CassetteReplay {
  /** The original's state hash at `until`, if it recorded one, and the fork's there. */
  hashAtFork?: { recorded: string; forked: string | undefined };
}

export async function replayFromCassette(recording: Recording, originalLines: readonly string[], fork?: ForkOptions): Promise<ForkResult> {
  const pilot = pilotOf(recording)!;
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
  const agent = modelAgentOf((context) => cassette.turn(pilot.character, context.tick), pilot.agent ?? 'cassette', pilot.character);
  const lines: string[] = [];
  const hashEvery = typeof options?.['hashEvery'] === 'number' ? options['hashEvery'] : undefined;
  const recordOptions =
    fork === undefined
      ? options
      : { ...options, pilot: { character: pilot.character, agent: fork.agent }, parent: { recording: fork.parent, tick: fork.until } };
  const run = await runVillage({
    seed,
    ticks,
    record: (line) => lines.push(line.replace(/\n$/, '')),
    pilot: { character: pilot.character, backend: agent.backend },
    ...(recordOptions !== undefined && { recordOptions }),
    ...(hashEvery !== undefined && { hashEvery }),
    // Between ticks, the answers the recording got at this tick; then everything they set off settles before the next.
    // After a fork's handover, a live model's time again.
    pace: async (tick) => {
      if (fork?.live === true && tick > fork.until) return new Promise((resolve) => setTimeout(resolve, 100));
      cassette.release(tick);
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    },
    ...(fork === undefined ? { stopAt: recording.end.tick } : { handover: { tick: fork.until, backend: fork.handTo } }),
  });
  await agent.close();
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
      ...(cassette.divergence !== undefined && { divergence: cassette.divergence }),
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

function pilotOf(recording: Recording): { character: string; agent?: string } | undefined {
  const pilot = recording.header.options?.['pilot'];
  return pilot !== null && typeof pilot === 'object' && !Array.isArray(pilot) ? (pilot as { character: string; agent?: string }) : undefined;
}
