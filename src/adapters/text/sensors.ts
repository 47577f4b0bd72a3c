// The sensors of a text world: `look` (the room), `inspect` (one thing in reach), `who` (the
// people here). They read the world and change nothing, so in event mode they cost no tick.

import { defineTool } from '../../runtime/tool.js';
import { NO_INPUT } from '../shared/schemas.js';
import { describeCharacter, describeItem, describeRoom } from './describe.js';
import { charactersNear } from './perception.js';
import { reach } from './reach.js';
import { caller, nameInput, ref, REF_SCHEMA, REFS_SCHEMA, withOptions, type Ref, type TextToolOptions } from './textTool.js';
import type { Character, TextWorld } from './world.js';

export type Person = Ref & { role?: string };

export type LookOutput = {
  id: string;
  name: string;
  description: string;
  /** `to`: the name of the room the exit leads to. */
  exits: Array<{ direction: string; to: string }>;
  items: Ref[];
  /** Everyone here but the caller. */
  characters: Person[];
  carrying: Ref[];
  /** The same, as prose. */
  text: string;
};

export type InspectOutput = {
  kind: 'item' | 'character';
  id: string;
  name: string;
  description: string;
  text: string;
  /** Items: whether the caller carries it (else it lies on the floor) and whether it can be taken. */
  carried?: boolean;
  portable?: boolean;
  /** Characters. */
  role?: string;
  carrying?: Ref[];
};

export type WhoOutput = { room: Ref; characters: Person[] };

const PERSON_SCHEMA = { ...REF_SCHEMA, properties: { ...REF_SCHEMA.properties, role: { type: 'string' } } } as const;

function person(character: Character): Person {
  return character.role === undefined ? ref(character) : { ...ref(character), role: character.role };
}

/**
 * `look {}` — the room the caller stands in: name, description, exits (and where they lead), items
 * on the floor, the others present, and what the caller carries. Requires sensor `sight`.
 * Limit: 60 calls/min — one look a second is more than a turn-based text game needs.
 */
export function lookTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'look',
      class: 'sensor',
      description:
        'Look around the room you are in: its description, the exits and where each leads, the items on the floor, who else is here, and what you carry.',
      input_schema: NO_INPUT,
      output_schema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          exits: {
            type: 'array',
            items: { type: 'object', properties: { direction: { type: 'string' }, to: { type: 'string' } }, required: ['direction', 'to'] },
          },
          items: REFS_SCHEMA,
          characters: { type: 'array', items: PERSON_SCHEMA },
          carrying: REFS_SCHEMA,
          text: { type: 'string' },
        },
        required: ['id', 'name', 'description', 'exits', 'items', 'characters', 'carrying', 'text'],
      },
      limits: { calls_per_minute: 60 },
      requires_capability: 'sight',
      strict_input: true,
      handler: (_input, context): LookOutput => {
        const me = caller(world, context);
        const room = world.room(me.room)!;
        return {
          id: room.id,
          name: room.name,
          description: room.description,
          exits: Object.entries(room.exits).map(([direction, id]) => ({ direction, to: world.room(id)!.name })),
          items: world.itemsAt(room.id).map(ref),
          characters: world
            .charactersIn(room.id)
            .filter((c) => c.id !== me.id)
            .map(person),
          carrying: world.itemsAt(me.id).map(ref),
          text: describeRoom(world, room, me.id),
        };
      },
    }),
    options,
  );
}

/**
 * `inspect { target }` — a closer look at one item (in hand or on the floor here) or one character
 * here ("me" for yourself), named by id, name, or role. Requires sensor `sight`.
 * Limit: 60 calls/min, like `look`.
 */
export function inspectTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'inspect',
      class: 'sensor',
      description:
        'Look closely at one item you carry or that lies here, or at one character here ("me" for yourself). Name it by id, name or role, e.g. "lantern" or "the miller".',
      input_schema: { type: 'object', properties: { target: nameInput('The item or character to inspect.') }, required: ['target'] },
      output_schema: {
        type: 'object',
        properties: {
          kind: { enum: ['item', 'character'] },
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          text: { type: 'string' },
          carried: { type: 'boolean' },
          portable: { type: 'boolean' },
          role: { type: 'string' },
          carrying: REFS_SCHEMA,
        },
        required: ['kind', 'id', 'name', 'description', 'text'],
      },
      limits: { calls_per_minute: 60 },
      requires_capability: 'sight',
      strict_input: true,
      handler: ({ target }, context): InspectOutput => {
        const found = reach(world, caller(world, context), target, 'inspect', false);
        if (found.kind === 'item') {
          const { item } = found;
          return {
            kind: 'item',
            id: item.id,
            name: item.name,
            description: item.description,
            text: describeItem(world, item),
            carried: found.carried,
            portable: item.portable,
          };
        }
        // Unreachable: reach() was asked for no rooms. Narrows the type for what follows.
        if (found.kind === 'room') throw new Error('inspect: reach() answered with a room');
        const { character } = found;
        const out: InspectOutput = {
          kind: 'character',
          id: character.id,
          name: character.name,
          description: character.description,
          text: describeCharacter(world, character),
          carrying: world.itemsAt(character.id).map(ref),
        };
        if (character.role !== undefined) out.role = character.role;
        return out;
      },
    }),
    options,
  );
}

/**
 * `who {}` — the others in the caller's room (by id), with their roles. Requires sensor `hearing`: who is
 * present is something a character can tell by ear, so a blind character can still ask.
 * Limit: 60 calls/min, like `look`.
 */
export function whoTool(world: TextWorld, options?: TextToolOptions) {
  return withOptions(
    defineTool({
      id: 'who',
      class: 'sensor',
      description: 'Who else is in the room with you, with their roles (e.g. miller, guard).',
      input_schema: NO_INPUT,
      output_schema: {
        type: 'object',
        properties: { room: REF_SCHEMA, characters: { type: 'array', items: PERSON_SCHEMA } },
        required: ['room', 'characters'],
      },
      limits: { calls_per_minute: 60 },
      requires_capability: 'hearing',
      strict_input: true,
      handler: (_input, context): WhoOutput => {
        const me = caller(world, context);
        return { room: ref(world.room(me.room)!), characters: charactersNear(world, me, 0).found.map(({ body }) => person(body)) };
      },
    }),
    options,
  );
}
