// One villager of Millbrook (src/worlds/village) driven by a Pilot over a scripted backend, the others
// left idle or driven by hand. The capsule runs on its ManualClock; `run` steps it tick by tick
// with runHeadless, letting the pilot and the links react between ticks.

import { runHeadless } from '../../../src/adapters/headless/runner.js';
import { AgentClient } from '../../../src/agent/agentClient.js';
import { Pilot, type PilotOptions } from '../../../src/agent/pilot/pilot.js';
import type { Frame } from '../../../src/protocol/codec.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { buildVillage, type Village } from '../../../src/worlds/village/world.js';
import { ScriptedBackend, type ScriptStep } from './fakeBackend.js';
import { tapLink } from '../../../src/links/wrapLink.js';

export interface PilotedVillage {
  village: Village;
  client: AgentClient;
  backend: ScriptedBackend;
  pilot: Pilot;
  /** Every frame the bridge sent the piloted agent, in order, with the count of texts sent to the model before it. */
  frames: Array<{ frame: Frame; sentBefore: number }>;
  /** Runs at most `ticks` ticks, or until `until` holds. */
  run(ticks: number, until?: () => boolean): Promise<number>;
  /** Connects another villager through a plain AgentClient, for a test to drive by hand. */
  connect(character: string): Promise<AgentClient>;
}

/** `options.backend`, when given, is used instead of a new ScriptedBackend of `script` (which is then unused). */
export async function pilotVillager(
  character: string,
  script: ScriptStep[],
  options: Partial<Omit<PilotOptions, 'backend'>> & { backend?: ScriptedBackend } = {},
  fallback?: ScriptStep,
): Promise<PilotedVillage> {
  const village = buildVillage(7);
  const backend = options.backend ?? new ScriptedBackend(script, fallback);
  const frames: PilotedVillage['frames'] = [];
  const connect = async (id: string, tap?: (frame: Frame) => void): Promise<AgentClient> => {
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    const connecting = AgentClient.connect(tap === undefined ? agentEnd : tapLink(agentEnd, tap), {
      clock: village.clock,
      randomBytes: village.random.fork(`agent:${id}`).bytes,
    });
    village.connect(id, bridgeEnd);
    return connecting;
  };
  const client = await connect(character, (frame) => frames.push({ frame, sentBefore: backend.sent.length }));
  const spec = village.world.character(character)!;
  const pilot = new Pilot({ clock: village.clock, character: { id: character, name: spec.name, description: spec.description }, ...options, client, backend });
  const run = async (ticks: number, until?: () => boolean): Promise<number> => {
    const result = await runHeadless({ capsule: village.capsule, ticks, ...(until !== undefined && { stopWhen: until }) });
    return result.ticks;
  };
  return { village, client, backend, pilot, frames, run, connect: (id) => connect(id) };
}
