// The generator of a text world: `compose` writes prose about something in reach from the world's
// own data — a description to read, or a note that becomes a new item in the writer's hands. No
// randomness: the same world and input always compose the same words and the same note id.

import { ToolError } from '../../base/errors.js';
import type { FromSchema } from '../../runtime/schemaType.js';
import { defineTool, type ToolDefinition } from '../../runtime/tool.js';
import { describeCharacter, describeItem, describeRoom, sentence } from './describe.js';
import { the } from './names.js';
import { reach, type Reachable } from './reach.js';
import { caller, nameInput, ref, REF_SCHEMA, withOptions, type Ref, type TextToolOptions } from './textTool.js';
import type { TextWorld } from './world.js';

export type ComposeOutput = {
  kind: 'description' | 'note';
  subject: Ref & { kind: 'room' | 'item' | 'character' };
  text: string;
  /** For a note: the new item, now carried by the writer. */
  note?: Ref;
};

/** The longest remark a writer may add to a note. */
export const MAX_REMARK_LENGTH = 200;

const COMPOSE_INPUT = {
  type: 'object',
  properties: {
    kind: { enum: ['description', 'note'], description: 'description: text only. note: text written on a new note item you carry.' },
    subject: nameInput('What to write about: "here" for the room, or an item or character by id or name.'),
    remark: { type: 'string', minLength: 1, maxLength: MAX_REMARK_LENGTH, description: 'Notes only: a line of your own added at the end.' },
  },
  required: ['kind', 'subject'],
} as const;

export type ComposeInput = FromSchema<typeof COMPOSE_INPUT>;

/**
 * `compose { kind, subject, remark? }` — `description`: prose about the room ("here"), an item in
 * reach or a character present, composed from the world's data. `note`: the same written on a new
 * portable item (id `note`, `note_2`, …, named "note about …") added to the writer's inventory,
 * with an optional remark in the writer's own words. Requires generator `quill`.
 * Limit: 10 calls/min — every note is a new item in the world, so writing is kept slow.
 */
export function composeTool(world: TextWorld, options?: TextToolOptions): ToolDefinition<ComposeInput, ComposeOutput> {
  return withOptions(
    defineTool({
      id: 'compose',
      class: 'generator',
      description:
        'Compose text about something in reach: the room ("here"), an item you carry or that lies here, or a character here. kind "description" returns the text; kind "note" also writes it on a new note you then carry (add an optional remark of your own).',
      input_schema: COMPOSE_INPUT,
      output_schema: {
        type: 'object',
        properties: {
          kind: { enum: ['description', 'note'] },
          subject: {
            type: 'object',
            properties: { kind: { enum: ['room', 'item', 'character'] }, id: { type: 'string' }, name: { type: 'string' } },
            required: ['kind', 'id', 'name'],
          },
          text: { type: 'string' },
          note: REF_SCHEMA,
        },
        required: ['kind', 'subject', 'text'],
      },
      limits: { calls_per_minute: 10 },
      requires_capability: 'quill',
      strict_input: true,
      handler: ({ kind, subject, remark }, context): ComposeOutput => {
        const me = caller(world, context);
        if (kind === 'description' && remark !== undefined) throw new ToolError('a remark goes only on a note; leave it out, or use kind "note"');
        const found = reach(world, me, subject, 'write about', true);
        const about = { kind: found.kind, id: found.id, name: found.name };
        const described = describe(world, found, me.id);
        if (kind === 'description') return { kind, subject: about, text: described };
        const text = [`Note by ${me.name} about ${the(found.name)}:`, described, remark === undefined ? '' : `${me.name} adds: "${sentence(remark)}"`]
          .filter((part) => part !== '')
          .join(' ');
        const note = world.addItem({ id: world.uniqueId('note'), name: `note about ${the(found.name)}`, description: text, location: me.id, portable: true });
        return { kind, subject: about, text, note: ref(note) };
      },
    }),
    options,
  );
}

function describe(world: TextWorld, found: Reachable, writer: string): string {
  switch (found.kind) {
    case 'room':
      return describeRoom(world, found.room, writer);
    case 'item':
      return describeItem(world, found.item);
    case 'character':
      return describeCharacter(world, found.character);
  }
}
