// A small PixiJS stage for the adapter tests — no renderer, no WebGL: PixiJS's scene graph and
// bounds run as they are (in jsdom, which PixiJS needs to load). Sprites are 16 px squares centred
// on their position:
//
//   (100,100) mira ──── wall (x 130..140, y 60..140) ──── ada (160,100)          far (1000,100)
//       │
//   (100,160) apple

import { Container, Sprite, Texture } from 'pixi.js';
import type { AgentClient, CallOutcome } from '../../../src/agent/agentClient.js';
import type { Capsule } from '../../../src/runtime/capsule.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { Capabilities, EventMessage, JsonObject } from '../../../src/protocol/messages.js';
import type { CapsuleOptions } from '../../../src/runtime/options.js';
import { PixiBinding, type PixiBindingOptions } from '../../../src/adapters/pixi/index.js';
import { connectAgent, makeCapsule, settle } from '../../helpers.js';

export const EVERY_CAPABILITY: Capabilities = { sensors: ['sight'], actuators: ['legs', 'voice'], generators: [] };

/** A 16 px square sprite centred on (x, y). */
export function square(x: number, y: number): Sprite {
  const sprite = new Sprite(Texture.WHITE);
  sprite.anchor.set(0.5);
  sprite.width = 16;
  sprite.height = 16;
  sprite.position.set(x, y);
  return sprite;
}

export interface Stage {
  capsule: Capsule;
  clock: ManualClock;
  world: Container;
  binding: PixiBinding;
  mira: Sprite;
  ada: Sprite;
  apple: Sprite;
  said: Array<[string, string]>;
}

/** The stage above, bound to a capsule on a ManualClock (event mode unless told), and connected. */
export function stage(options: { capsule?: Partial<CapsuleOptions>; binding?: PixiBindingOptions; connect?: boolean } = {}): Stage {
  const { capsule, clock } = makeCapsule({ world: { name: 'Pixiland', kind: '2d' }, ...options.capsule });
  const world = new Container();
  const mira = square(100, 100);
  const ada = square(160, 100);
  const apple = square(100, 160);
  const far = square(1000, 100);
  world.addChild(mira, ada, apple, far);
  const said: Array<[string, string]> = [];
  const binding = new PixiBinding(capsule, { onSay: (id, text) => said.push([id, text]), ...options.binding });
  binding
    .addCharacter('mira', mira, { kind: 'villager' })
    .addCharacter('ada', ada, { kind: 'villager' })
    .addObject('apple', apple, { kind: 'apple' })
    .addCharacter('far', far)
    .addObstacle('wall', { x: 130, y: 60, width: 10, height: 80 });
  if (options.connect !== false) binding.connect();
  return { capsule, clock, world, binding, mira, ada, apple, said };
}

export interface Player {
  agent: AgentClient;
  /** World events (ticks left out) in arrival order. */
  events: Array<Pick<EventMessage, 'topic' | 'payload'>>;
}

export async function play(s: Pick<Stage, 'capsule' | 'clock'>, character: string, capabilities: Capabilities = EVERY_CAPABILITY): Promise<Player> {
  const { agent } = await connectAgent(s.capsule, s.clock, { character, capabilities, agentModel: { class: 'edge_small' } });
  const events: Player['events'] = [];
  agent.on('event', (event) => {
    if (event.topic !== 'tick') events.push({ topic: event.topic, payload: event.payload });
  });
  return { agent, events };
}

/** Runs `count` frames of `dtMs` each (the binding steps the capsule, whose clock goes with them), letting links deliver after every one. */
export async function frames(binding: PixiBinding, count: number, dtMs: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    binding.update(dtMs);
    await settle();
  }
  await settle();
}

/** A call's output, or a failure naming its error. */
export function ok(outcome: CallOutcome): JsonObject {
  if (!outcome.ok) throw new Error(`expected ok, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.output;
}
