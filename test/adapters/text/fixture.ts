// A four-room world shared by the text adapter tests, and helpers to put agents in it.
//
//   Meadow (tom) ── south/north ── The Mill (wren, mira) ── west/east ── The Yard (ada)
//                                                                          │ down/up
//                                                                        Cellar (bo)
//
// The Mill's neighbours are the Meadow and the Yard; the Cellar is two exits away.

import type { AgentClient } from '../../../src/agent/agentClient.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { Capabilities, EventMessage } from '../../../src/protocol/messages.js';
import { TextWorld, type TextWorldSpec } from '../../../src/adapters/text/index.js';
import { connectAgent, settle } from '../../helpers.js';

export function millSpec(): TextWorldSpec {
  return {
    rooms: [
      { id: 'mill', name: 'The Mill', description: 'Flour dust hangs in the air.', exits: { north: 'meadow', west: 'yard' } },
      { id: 'meadow', name: 'Meadow', description: 'Long grass and a few sheep.', exits: { south: 'mill' } },
      { id: 'yard', name: 'The Yard', description: 'A cobbled yard behind the mill.', exits: { east: 'mill', down: 'cellar' } },
      { id: 'cellar', name: 'Cellar', description: 'Cold and dark.', exits: { up: 'yard' } },
    ],
    characters: [
      { id: 'wren', name: 'Wren', description: 'A curious traveller.', room: 'mill' },
      { id: 'mira', name: 'Mira', description: 'Strong arms, floury apron.', room: 'mill', role: 'miller' },
      { id: 'tom', name: 'Tom', description: 'He watches the sheep.', room: 'meadow', role: 'shepherd' },
      { id: 'ada', name: 'Ada', description: 'She keeps the keys.', room: 'yard', role: 'keeper' },
      { id: 'bo', name: 'Bo', description: 'Sorting barrels.', room: 'cellar' },
    ],
    items: [
      { id: 'lantern', name: 'lantern', description: 'A brass lantern, unlit.', location: 'mill' },
      { id: 'millstone', name: 'millstone', description: 'Far too heavy to lift.', location: 'mill', portable: false },
      { id: 'red_apple', name: 'red apple', description: 'Crisp.', location: 'meadow' },
      { id: 'green_apple', name: 'green apple', description: 'Sour.', location: 'meadow' },
      { id: 'bread', name: 'loaf of bread', description: 'Still warm.', location: 'mira' },
      { id: 'key', name: 'iron key', description: 'Opens the cellar.', location: 'ada' },
    ],
  };
}

export function millWorld(): TextWorld {
  return new TextWorld(millSpec());
}

export const ALL_CAPABILITIES: Capabilities = { sensors: ['sight', 'hearing'], actuators: ['legs', 'hands', 'voice'], generators: ['quill'] };
const WORLD_TOPICS = ['state_change', 'agent_message', 'audio'];

/** An agent playing `character`, and every world event it receives (ticks left out). */
export interface Player {
  agent: AgentClient;
  events: Array<Pick<EventMessage, 'topic' | 'payload'>>;
}

/** Connects an edge_small agent (per-event delivery) to `character` with the given capabilities. */
export async function play(capsule: Capsule, clock: ManualClock, character: string, capabilities: Partial<Capabilities> = ALL_CAPABILITIES): Promise<Player> {
  const { agent } = await connectAgent(capsule, clock, { character, capabilities, agentModel: { class: 'edge_small' }, subscriptions: WORLD_TOPICS });
  const events: Player['events'] = [];
  agent.on('event', (message) => events.push({ topic: message.topic, payload: message.payload }));
  return { agent, events };
}

/** Lets every queued event reach its agent: deliveries wait up to one cadence interval (12.5 ms). */
export async function flush(clock: ManualClock): Promise<void> {
  for (let i = 0; i < 4; i++) {
    clock.advance(20);
    await settle();
  }
}
