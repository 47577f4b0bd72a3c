// The actuators of a text world: `go` (legs), `take`, `drop`, `give` (hands) and `say` (voice).
// Each is one TextWorld change; a rule it breaks comes back as execution_failed in the world's
// words ("there is no exit east from the Mill; exits: north, west").

import { defineTool } from '../../runtime/tool.js';
import { objectOf } from '../shared/schemas.js';
import { caller, nameInput, ref, REF_SCHEMA, REFS_SCHEMA, withOptions, type Ref, type TextToolOptions } from './textTool.js';
import { MAX_SAY_LENGTH, type TextWorld } from './world.js';

export type GoOutput = { direction: string; from: Ref; to: Ref };
export type TakeOutput = { item: Ref; carrying: Ref[] };
export type DropOutput = { item: Ref; room: Ref };
export type GiveOutput = { item: Ref; to: Ref };
export type SayOutput = { text: string; room: Ref; to?: Ref };

/**
 * `go { direction }` — through one of the room's exits (`n`, `s`, `e`, `w`, `u`, `d` are understood).
 * Requires actuator `legs`. Limit: 30 calls/min — a room every two seconds is brisk for a text
 * game, and it stops an agent from pacing the map in a tight loop.
 */
export function goTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'go',
      class: 'actuator',
      description: 'Walk through one of the exits of the room you are in, e.g. north. `look` lists the exits.',
      input_schema: objectOf({ direction: { type: 'string', minLength: 1, maxLength: 32, description: 'An exit of this room, e.g. north, up, trapdoor.' } }),
      output_schema: objectOf({ direction: { type: 'string' }, from: REF_SCHEMA, to: REF_SCHEMA }),
      limits: { calls_per_minute: 30 },
      requires_capability: 'legs',
      strict_input: true,
      handler: ({ direction }, context): GoOutput => {
        const moved = world.move(caller(world, context).id, direction);
        return { direction: moved.direction, from: ref(moved.from), to: ref(moved.to) };
      },
    }),
    options,
  );
}

/**
 * `take { item }` — picks up an item from the floor of the caller's room. Requires actuator
 * `hands`. Limit: 30 calls/min.
 */
export function takeTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'take',
      class: 'actuator',
      description: 'Pick up an item lying in the room you are in, named by id or name (e.g. "lantern"). Some things are too heavy to take.',
      input_schema: objectOf({ item: nameInput('The item to pick up.') }),
      output_schema: objectOf({ item: REF_SCHEMA, carrying: REFS_SCHEMA }),
      limits: { calls_per_minute: 30 },
      requires_capability: 'hands',
      strict_input: true,
      handler: ({ item }, context): TakeOutput => {
        const me = caller(world, context);
        const taken = world.take(me.id, item);
        return { item: ref(taken.item), carrying: world.itemsAt(me.id).map(ref) };
      },
    }),
    options,
  );
}

/**
 * `drop { item }` — puts a carried item on the floor of the caller's room. Requires actuator
 * `hands`. Limit: 30 calls/min.
 */
export function dropTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'drop',
      class: 'actuator',
      description: 'Put down an item you carry; it stays on the floor of the room you are in.',
      input_schema: objectOf({ item: nameInput('The carried item to put down.') }),
      output_schema: objectOf({ item: REF_SCHEMA, room: REF_SCHEMA }),
      limits: { calls_per_minute: 30 },
      requires_capability: 'hands',
      strict_input: true,
      handler: ({ item }, context): DropOutput => {
        const dropped = world.drop(caller(world, context).id, item);
        return { item: ref(dropped.item), room: ref(world.room(dropped.to)!) };
      },
    }),
    options,
  );
}

/**
 * `give { item, to }` — hands a carried item to a character in the same room (named by id, name or
 * role). Requires actuator `hands`. Limit: 20 calls/min — giving is a social act, rarer than
 * fetching and carrying.
 */
export function giveTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'give',
      class: 'actuator',
      description: 'Hand an item you carry to someone in the same room, named by id, name or role (e.g. "Mira" or "the miller").',
      input_schema: objectOf({ item: nameInput('The carried item to hand over.'), to: nameInput('Who receives it; they must be in this room.') }),
      output_schema: objectOf({ item: REF_SCHEMA, to: REF_SCHEMA }),
      limits: { calls_per_minute: 20 },
      requires_capability: 'hands',
      strict_input: true,
      handler: ({ item, to }, context): GiveOutput => {
        const given = world.give(caller(world, context).id, item, to);
        return { item: ref(given.item), to: ref(world.character(given.to)!) };
      },
    }),
    options,
  );
}

/**
 * `say { text, to? }` — speaks (1–280 characters) to the room or to one character in it. Everyone
 * in the room hears the words; neighbouring rooms hear only voices. Requires actuator `voice`.
 * Limit: 20 calls/min — room for a conversation, not for flooding every listener's event queue.
 */
export function sayTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'say',
      class: 'actuator',
      description: `Say something aloud (at most ${MAX_SAY_LENGTH} characters). Everyone in the room hears it, even when you address one person with "to"; people next door hear only voices.`,
      input_schema: objectOf(
        {
          text: { type: 'string', minLength: 1, maxLength: MAX_SAY_LENGTH, description: 'What to say.' },
          to: nameInput('Optional: the one person here you address, by id, name or role.'),
        },
        ['text'],
      ),
      output_schema: objectOf({ text: { type: 'string' }, room: REF_SCHEMA, to: REF_SCHEMA }, ['text', 'room']),
      limits: { calls_per_minute: 20 },
      requires_capability: 'voice',
      strict_input: true,
      handler: ({ text, to }, context): SayOutput => {
        const said = world.say(caller(world, context).id, text, to);
        const out: SayOutput = { text: said.text, room: ref(world.room(said.room)!) };
        if (said.to !== undefined) out.to = ref(world.character(said.to)!);
        return out;
      },
    }),
    options,
  );
}
