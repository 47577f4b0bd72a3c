// `aicc replay` of a recording made with a model backend: the day is run again — world, scripted
// villagers, pilot and model backend — with every model turn answered from the recording's cassette
// at the tick it was answered, and zero model calls. The replay writes its own recording; every
// line of it must equal the original's (messages, decisions, exchanges, state hashes). A request
// that differs from the recorded one (a new briefing, a new digest, another library version) stops
// the replay there and is named: tick, character, model turn, the recording's line, and a short diff.

import { Cassette, type Divergence } from '../../agent/model/cassette.js';
import type { ModelReply, ModelRequest } from '../../agent/model/modelPort.js';
import type { Recording } from '../../recording/recording.js';
import { runVillage } from '../../worlds/village/run.js';
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

export async function replayFromCassette(recording: Recording, originalLines: readonly string[]): Promise<CassetteReplay> {
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
  const run = await runVillage({
    seed,
    ticks,
    record: (line) => lines.push(line.replace(/\n$/, '')),
    pilot: { character: pilot.character, backend: agent.backend },
    ...(options !== undefined && { recordOptions: options }),
    ...(hashEvery !== undefined && { hashEvery }),
    // Between ticks, the answers the recording got at this tick; then everything they set off settles before the next.
    pace: async (tick) => {
      cassette.release(tick);
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    },
    stopAt: recording.end.tick,
  });
  await agent.close();
  const at = lines.findIndex((line, i) => line !== originalLines[i]);
  const differs = at >= 0 ? at : lines.length !== originalLines.length ? lines.length : -1;
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
