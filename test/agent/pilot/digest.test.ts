import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../../src/agent/agentClient.js';
import { compact } from '../../../src/runtime/compact.js';
import { Digest, isUrgent } from '../../../src/agent/pilot/digest.js';
import { PROTOCOL, type EventMessage, type JsonObject, type Topic } from '../../../src/protocol/messages.js';
import { aicc } from './fakeBackend.js';
import { pilotVillager } from './village.js';

let sequence = 0;
function event(topic: Topic, payload: JsonObject, meta?: JsonObject): EventMessage {
  const message: EventMessage = { protocol: PROTOCOL, type: 'event', session_id: 's', message_id: `m${++sequence}`, topic, payload };
  if (meta !== undefined) message.meta = meta;
  return message;
}

const ok = (output: JsonObject): CallOutcome => ({ ok: true, output, meta: { tick: 1, latency_ms: 0, source: 'handler' }, callId: 'c1' });
const refused = (code: 'invalid_input' | 'tool_unavailable', message: string, retryable = false): CallOutcome => ({
  ok: false,
  error: { code, message, retryable },
  meta: { tick: 1, latency_ms: 0, source: 'bridge' },
  callId: 'c2',
});

describe('a digest', () => {
  it('collapses ticks to one line, and ticks alone are no news', () => {
    const digest = new Digest({ self: 'bram' });
    digest.addEvent(event('tick', { tick: 40, dt_ms: 100, time_ms: 4000 }));
    digest.addEvent(event('tick', { tick: 42, dt_ms: 200, time_ms: 4200, ticks: 2 }));
    digest.addEvent(event('tick', { tick: 43, dt_ms: 100, time_ms: 4300 }));
    expect(digest.hasNews).toBe(false);
    expect(digest.take()).toBe('tick 43 (+4 ticks, 0.4 s)');
  });

  it('sums up state changes per entity and field, in the order they began', () => {
    const digest = new Digest({ self: 'bram' });
    digest.addEvent(event('state_change', { entity: 'bram', field: 'room', value: 'lane', previous: 'mill' }));
    digest.addEvent(event('state_change', { entity: 'red_apple', field: 'location', value: 'bram', previous: 'orchard' }));
    digest.addEvent(event('state_change', { entity: 'bram', field: 'room', value: 'orchard', previous: 'lane' }));
    for (const room of ['a', 'b', 'c', 'd', 'e']) digest.addEvent(event('state_change', { entity: 'cleo', field: 'room', value: room }));
    digest.addEvent(event('state_change', { entity: 'note', field: 'location', value: 'ada' }));
    expect(digest.take()).toBe(
      ['News:', '- you.room: mill → lane → orchard', '- red_apple.location: orchard → you', '- cleo.room: a → … → c → d → e', '- note.location: ada'].join(
        '\n',
      ),
    );
  });

  it("tells words with who said them to whom, sounds, collisions and the game's own topics", () => {
    const digest = new Digest({ self: 'bram' });
    digest.addEvent(event('agent_message', { from: 'ada', text: 'Bram, a loaf for an apple?', to: 'bram' }));
    digest.addEvent(event('agent_message', { from: 'cleo', text: 'Good day, all!' }));
    digest.addEvent(event('audio', { source: 'ada', sound: 'voices', volume: 0.5, room: 'square' }));
    digest.addEvent(event('collision', { a: 'bram', b: 'cart', phase: 'begin' }));
    digest.addEvent(event('weather' as Topic, { sky: 'rain', wind: 3 }));
    expect(digest.take()).toBe(
      [
        'News:',
        '- ada to you [untrusted]: "Bram, a loaf for an apple?"',
        '- cleo [untrusted]: "Good day, all!"',
        '- heard voices from ada (volume: 0.5, room: square)',
        '- collision you × cart (begin)',
        '- weather: sky: rain, wind: 3',
      ].join('\n'),
    );
  });

  it('lists results: outputs in compact notation, refusals with code, retryability and the reason, skipped calls', () => {
    const digest = new Digest({ self: 'bram' });
    digest.addResult(
      { tool: 'take', input: { item: 'red apple' } },
      ok({
        item: { id: 'red_apple', name: 'red apple' },
        carrying: [
          { id: 'red_apple', name: 'red apple' },
          { id: 'note_2', name: 'note about the Mill' },
        ],
      }),
    );
    digest.addResult({ tool: 'go', input: { dir: 'up' } }, refused('invalid_input', 'go: input.dir is not a declared field'));
    digest.addResult({ tool: 'look', input: {} }, refused('tool_unavailable', 'look: at most 60 calls per minute; retry in 812 ms', true));
    digest.addSkipped({ tool: 'say', input: { text: 'Hi, all' } }, 'an earlier call was refused');
    digest.addNote('I could not read line 3: walk (not a JSON object)');
    expect(digest.take((called) => [...called].join(', '))).toBe(
      [
        'Results:',
        '- ok take {item: red apple} → item: red_apple, carrying: [red_apple, note about the Mill (note_2)]',
        '- REFUSED go {dir: up} (invalid_input): go: input.dir is not a declared field',
        '- REFUSED look (tool_unavailable, retryable): look: at most 60 calls per minute; retry in 812 ms',
        '- skipped say {text: "Hi, all"}: an earlier call was refused',
        'Notes:',
        '- I could not read line 3: walk (not a JSON object)',
        'Quota left: take',
      ].join('\n'),
    );
    expect(digest.take()).toBe('');
  });

  it('bounds the news and the notes, and counts what the capsule dropped', () => {
    const digest = new Digest({ self: 'bram', maxNewsLines: 3, maxNotes: 1 });
    digest.addEvent(event('audio', { source: 'x', sound: 'thud' }, { dropped_events: 12 }));
    for (let i = 0; i < 5; i++) digest.addEvent(event('agent_message', { from: 'cleo', text: `line ${i}` }));
    digest.addNote('one');
    digest.addNote('two');
    const lines = digest.take().split('\n');
    expect(lines).toEqual([
      'News:',
      '- heard thud from x',
      '- cleo [untrusted]: "line 0"',
      '- cleo [untrusted]: "line 1"',
      '- … and 4 more',
      'Notes:',
      '- one',
      '- … and 1 more',
    ]);
  });

  it("uses the game's view of a tool's output", () => {
    const digest = new Digest({ self: 'bram', outputView: (tool, output) => (tool === 'look' ? output['text'] : output) });
    digest.addResult({ tool: 'look', input: {} }, ok({ id: 'mill', text: 'Mill. The wheel creaks.' }));
    expect(digest.take()).toBe('Results:\n- ok look → Mill. The wheel creaks.');
  });

  it('knows urgent news: a collision, or words addressed to this character', () => {
    expect(isUrgent(event('collision', { a: 'x', b: 'y' }), 'bram')).toBe(true);
    expect(isUrgent(event('agent_message', { from: 'ada', text: 'hi', to: 'bram' }), 'bram')).toBe(true);
    expect(isUrgent(event('agent_message', { from: 'ada', text: 'hi', to: 'cleo' }), 'bram')).toBe(false);
    expect(isUrgent(event('agent_message', { from: 'ada', text: 'hi' }), 'bram')).toBe(false);
  });
});

describe('compact notation', () => {
  it('folds references, leaves plain words bare, quotes what could be misread, cuts what is long', () => {
    expect(compact({ id: 'square', name: 'Village Square' })).toBe('Village Square (square)');
    expect(compact({ id: 'ada', name: 'Ada', role: 'baker' })).toBe('ada (role: baker)');
    expect(compact({ a: 'two words', b: 'a, b', c: '42', d: 'true', e: '', f: null, g: [] })).toBe(
      'a: two words, b: "a, b", c: "42", d: "true", e: "", f: null, g: []',
    );
    expect(compact({ nested: { deep: { deeper: { deepest: { x: 1 } } } } })).toBe('nested: {deep: {deeper: {deepest: {…}}}}');
    expect(compact(Array.from({ length: 15 }, (_, i) => i))).toBe('[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, … +3 more]');
    expect(compact('x'.repeat(300), { maxString: 10 })).toBe('xxxxxxxxx…');
  });
});

describe('digests in the village', () => {
  it('are measurably shorter than the raw AICC JSON of the same results and events', async () => {
    const { backend, pilot, frames, run } = await pilotVillager('bram', [
      aicc({ tool: 'look' }),
      aicc({ tool: 'go', input: { direction: 'south' } }, { tool: 'go', input: { direction: 'west' } }),
      aicc({ tool: 'take', input: { item: 'red apple' } }, { tool: 'take', input: { item: 'millstone' } }),
      aicc({ tool: 'look' }),
    ]);
    pilot.start();
    await run(40, () => backend.sent.length >= 5);
    const digests = backend.sent.slice(1, 5);
    expect(digests).toHaveLength(4);
    let rawTotal = 0;
    let digestTotal = 0;
    digests.forEach((digest, index) => {
      // Frames that reached the pilot after the previous text went out and before this one.
      const raw = frames
        .filter((f) => f.sentBefore === index + 1)
        .map((f) => String(f.frame))
        .filter((frame) => /"type":"(event|tool_result)"/.test(frame));
      const rawChars = raw.reduce((sum, frame) => sum + frame.length, 0);
      expect(raw.length).toBeGreaterThan(0);
      expect(digest.text.length).toBeLessThan(rawChars * 0.6);
      rawTotal += rawChars;
      digestTotal += digest.text.length;
    });
    expect(digestTotal / rawTotal).toBeLessThan(0.35);
    // The refusal is there, in the world's words.
    expect(digests[2]!.text).toContain('REFUSED take {item: millstone} (execution_failed): ');
  });
});
