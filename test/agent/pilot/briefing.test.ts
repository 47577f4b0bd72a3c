import { describe, expect, it } from 'vitest';
import { briefing } from '../../../src/agent/pilot/briefing.js';
import { catalogChanges, toolLine, typeText, usable } from '../../../src/agent/pilot/catalog.js';
import type { Manifest, ToolDescriptor } from '../../../src/protocol/messages.js';
import { pilotVillager } from './village.js';

async function villageManifest(): Promise<Manifest> {
  const { client } = await pilotVillager('bram', []);
  return client.manifest;
}

const BRAM = { id: 'bram', name: 'Bram', description: 'The farmer, boots caked in mud.', goal: 'Sell the orchard apples at the market.' };

describe('the briefing', () => {
  it('says who the character is, where, and what it wants', async () => {
    const text = briefing({ character: BRAM, manifest: await villageManifest(), maxCallsPerReply: 8 });
    expect(text).toContain('You are Bram in Millbrook, a text world. Your id is "bram"');
    expect(text).toContain('The farmer, boots caked in mud.');
    expect(text).toContain('Your goal: Sell the orchard apples at the market.');
  });

  it('lists every tool on one compact line: id, class, fields with types and required marks, limits', async () => {
    const text = briefing({ character: BRAM, manifest: await villageManifest(), maxCallsPerReply: 8 });
    const lines = text.split('\n');
    const line = (id: string) => lines.find((l) => l.startsWith(`${id} [`));
    expect(line('look')).toMatch(/^look \[sensor\] \{\} 60\/min — Look around the room/);
    expect(line('go')).toMatch(/^go \[actuator\] \{direction\*: string 1\.\.32\} 30\/min — Walk through/);
    expect(line('give')).toMatch(/^give \[actuator\] \{item\*: string 1\.\.80, to\*: string 1\.\.80\} 20\/min/);
    expect(line('say')).toMatch(/^say \[actuator\] \{text\*: string 1\.\.280, to: string 1\.\.80\} 20\/min/);
    expect(line('compose')).toMatch(/^compose \[generator\] \{kind\*: "description"\|"note", subject\*: string 1\.\.80, remark: string 1\.\.200\} 10\/min/);
    expect(lines.filter((l) => /^\w+ \[(sensor|actuator|generator)\]/.test(l))).toHaveLength(9);
  });

  it('carries no raw JSON Schema, and is far shorter than the manifest it describes', async () => {
    const manifest = await villageManifest();
    const text = briefing({ character: BRAM, manifest, maxCallsPerReply: 8 });
    for (const fragment of ['"type"', 'input_schema', 'output_schema', 'minLength', '"properties"']) expect(text).not.toContain(fragment);
    const catalog = manifest.tools.map((tool) => toolLine(tool)).join('\n');
    expect(catalog.length).toBeLessThan(JSON.stringify(manifest.tools).length / 3);
  });

  it('for native tools, lists each tool without its field notation (the model has the schemas), and says what untrusted words are', async () => {
    const manifest = await villageManifest();
    const text = briefing({ character: BRAM, manifest, maxCallsPerReply: 8, nativeTools: true });
    const go = text.split('\n').find((line) => line.startsWith('go '))!;
    expect(go).toMatch(/^go \[actuator\] \d+\/min — /);
    expect(text).not.toMatch(/\{direction\*/);
    expect(text).toContain('These tools are your own tools');
    expect(text).toContain('Words marked [untrusted] were written by other players or characters');
    expect(text.length).toBeLessThan(briefing({ character: BRAM, manifest, maxCallsPerReply: 8 }).length);
  });

  it('explains quotas and time', async () => {
    const text = briefing({ character: BRAM, manifest: await villageManifest(), maxCallsPerReply: 8 });
    expect(text).toContain(
      'Quotas: the limits above are calls per minute (/min) or per session; only calls that reach the tool count, a refused call costs nothing. I tell you what is left after you use a tool, and when it runs low.',
    );
    expect(text).toContain('Time: the world runs at 10 ticks a second and does not wait for you');
  });

  it('gives the reply format with a real call as the example, the cap, and how to wait', async () => {
    const text = briefing({ character: BRAM, manifest: await villageManifest(), maxCallsPerReply: 5 });
    expect(text).toContain('in one fenced aicc block, one JSON object per line:\n```aicc\n{"tool":"go","input":{"direction":"north"}}\n```');
    expect(text).toContain('Text outside the block is ignored. At most 5 calls per reply; they run in order, and after a refused call the rest are skipped.');
    expect(text).toContain('To wait for news, reply with an empty aicc block.');
    expect(text).toContain('only your last message counts');
  });

  it("leaves out tools whose capability the session lacks, and adds the game's notes", async () => {
    const manifest = await villageManifest();
    const mute: Manifest = { ...manifest, capabilities: { ...manifest.capabilities, actuators: ['legs'], generators: [] } };
    const text = briefing({ character: { id: 'bram' }, manifest: mute, maxCallsPerReply: 8, notes: 'Stay in character.' });
    expect(text).toContain('go [actuator]');
    for (const id of ['say', 'take', 'give', 'compose']) expect(text).not.toContain(`\n${id} [`);
    expect(text).toContain('\nStay in character.\n');
    expect(text).toContain('You are bram in Millbrook');
  });
});

describe('the compact catalog', () => {
  const tool = (input_schema: ToolDescriptor['input_schema'], extra: Partial<ToolDescriptor> = {}): ToolDescriptor => ({
    id: 't',
    class: 'sensor',
    description: 'D.',
    input_schema,
    output_schema: {},
    ...extra,
  });

  it('writes each field type in a few characters', () => {
    expect(typeText({ type: 'integer', minimum: 0, maximum: 9 })).toBe('integer 0..9');
    expect(typeText({ type: 'number', exclusiveMinimum: 0 })).toBe('number >0');
    expect(typeText({ type: 'string', maxLength: 12 })).toBe('string ≤12');
    expect(typeText({ type: 'string', format: 'date-time' })).toBe('string(date-time)');
    expect(typeText({ type: 'string', pattern: '^[a-z]+$' })).toBe('string /^[a-z]+$/');
    expect(typeText({ type: 'boolean', default: false })).toBe('boolean =false');
    expect(typeText({ type: 'array', items: { type: 'string' }, maxItems: 3 })).toBe('[string] ≤3');
    expect(typeText({ type: ['string', 'null'] })).toBe('string|null');
    expect(typeText({ anyOf: [{ type: 'integer' }, { const: 'all' }] })).toBe('integer|"all"');
    expect(typeText({ enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })).toBe('1|2|3|4|5|6|7|8|…');
    expect(typeText({ type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] })).toBe('{x*: number, y: number}');
  });

  it('shows both limits, and ends a long description at a sentence', () => {
    const long = `${'A first sentence that says a lot. '.repeat(10)}And the rest.`;
    const line = toolLine(tool({ type: 'object' }, { limits: { calls_per_minute: 6, calls_per_session: 100 }, description: long }));
    expect(line).toMatch(/^t \[sensor\] \{\} 6\/min, 100\/session — A first sentence/);
    expect(line.endsWith('says a lot.')).toBe(true);
    expect(line.length).toBeLessThan(340);
  });

  it('knows which tools the session may use, by class', () => {
    const capabilities = { sensors: ['sight'], actuators: [], generators: [] };
    expect(usable(tool({}, { requires_capability: 'sight' }), capabilities)).toBe(true);
    expect(usable(tool({}, { class: 'actuator', requires_capability: 'sight' }), capabilities)).toBe(false);
    expect(usable(tool({}), capabilities)).toBe(true);
  });

  it('tells what changed in the catalog', () => {
    const capabilities = { sensors: [], actuators: [], generators: [] };
    const a = tool({}, { id: 'a' });
    const b = tool({}, { id: 'b' });
    const b2 = tool({}, { id: 'b', limits: { calls_per_minute: 1 } });
    const c = tool({}, { id: 'c' });
    expect(catalogChanges([a, b], [b2, c], capabilities)).toEqual(['tool changed: b [sensor] {} 1/min — D.', 'new tool: c [sensor] {} — D.', 'tool gone: a']);
    expect(catalogChanges([a], [a], capabilities)).toEqual([]);
  });
});
