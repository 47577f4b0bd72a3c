// Re-runs a recorded world with no agent at all: the recorded inbound messages are fed to a freshly
// built world at the ticks they arrived, and everything the bridge sends is compared with what it
// sent the first time. Decision lines (what a pilot's decisions cost) are not messages: no model
// runs in a replay, so they are passed over.

import { createMemoryLinkPair } from '../links/memory.js';
import type { Link } from '../links/link.js';
import type { Capsule } from '../runtime/capsule.js';
import { isSteppedClock } from '../base/clock.js';
import { CapsuleError } from '../base/errors.js';
import type { AiccMessage, MessageType } from '../protocol/messages.js';
import type { Recording, RecordingHeader } from './recording.js';

/** A world built again from a recording's header, without its agents. */
export interface ReplayWorld {
  /** Must run on a ManualClock, seeded as the recorded run was. */
  capsule: Capsule;
  /** Opens the character's session on this link, with the options the recorded run used. */
  connect(character: string, link: Link): void;
}

export type WorldBuilder = (header: RecordingHeader) => ReplayWorld | Promise<ReplayWorld>;

export interface Mismatch {
  character: string;
  /** Position in that character's outbound messages. */
  index: number;
  expected: AiccMessage | undefined;
  actual: AiccMessage | undefined;
}

export interface ReplayReport {
  matched: boolean;
  /** Outbound messages compared, by type. */
  compared: Partial<Record<MessageType, number>>;
  /** Outbound messages that matched, by type. */
  agreed: Partial<Record<MessageType, number>>;
  /** The first mismatch of each character. */
  mismatches: Mismatch[];
}

/** Waits until in-process links have delivered everything (a macrotask after all microtasks). */
function settle(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

export async function replay(recording: Recording, build: WorldBuilder): Promise<ReplayReport> {
  const world = await build(recording.header);
  const { capsule } = world;
  if (!isSteppedClock(capsule.clock)) {
    throw new CapsuleError('AICC_INVALID_OPTION', 'replay: the world must run on a ManualClock so the recorded ticks can be replayed exactly');
  }
  const interval = 1000 / capsule.tickRateHz;
  const produced = new Map<string, AiccMessage[]>();
  const expected = new Map<string, AiccMessage[]>();
  const links = new Map<string, Link>();
  const runTo = async (tick: number): Promise<void> => {
    while (capsule.tick < tick) {
      capsule.step(interval);
      await settle();
    }
  };

  for (const entry of recording.entries) {
    await runTo(entry.tick);
    if (entry.dir === 'out') {
      push(expected, entry.character, entry.message);
      if (entry.message.type === 'session_init') {
        const [bridgeEnd, agentEnd] = createMemoryLinkPair();
        agentEnd.listen({ message: (frame) => push(produced, entry.character, JSON.parse(String(frame)) as AiccMessage), close: () => {} });
        links.set(entry.character, agentEnd);
        world.connect(entry.character, bridgeEnd);
        await settle();
      }
      continue;
    }
    // One message at a time, so the bridge takes them in exactly the recorded order.
    links.get(entry.character)?.send(JSON.stringify(entry.message));
    await settle();
  }
  // The run may have stopped before header.ticks (a stop condition): the last entry is the end.
  capsule.dispose('replay finished');
  await settle();
  return compare(expected, produced, recording.cutShort !== undefined);
}

/** `cutShort`: the recording stops mid-run, so what the replay sent after its last recorded message is not compared. */
function compare(expected: Map<string, AiccMessage[]>, produced: Map<string, AiccMessage[]>, cutShort: boolean): ReplayReport {
  const report: ReplayReport = { matched: true, compared: {}, agreed: {}, mismatches: [] };
  for (const [character, wanted] of expected) {
    const got = produced.get(character) ?? [];
    // The replay's own shutdown may add a session_close the recording did not need to have.
    const length = Math.max(wanted.length, got.length);
    let reported = false;
    for (let index = 0; index < length; index++) {
      const want = wanted[index];
      const have = got[index];
      if (want === undefined && (cutShort || have?.type === 'session_close')) continue;
      const type = (want ?? have)!.type;
      report.compared[type] = (report.compared[type] ?? 0) + 1;
      if (want !== undefined && have !== undefined && JSON.stringify(want) === JSON.stringify(have)) {
        report.agreed[type] = (report.agreed[type] ?? 0) + 1;
        continue;
      }
      report.matched = false;
      if (!reported) report.mismatches.push({ character, index, expected: want, actual: have });
      reported = true;
    }
  }
  return report;
}

function push(map: Map<string, AiccMessage[]>, key: string, message: AiccMessage): void {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = []));
  list.push(message);
}
