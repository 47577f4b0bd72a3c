import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import type { Link } from '../../src/links/link.js';
import { createCapsule } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/base/clock.js';
import type { RandomBytes } from '../../src/protocol/ids.js';
import { Recorder } from '../../src/recording/recorder.js';
import { parseRecording, RecordingError, type RecordedDecisionCost, type RecordingHeader } from '../../src/recording/recording.js';
import { replay, type ReplayWorld } from '../../src/recording/replay.js';
import { ajvValidators } from '../../src/validators/ajv.js';
import { settle } from '../helpers.js';

/** A counter, standing in for a seeded source: the same run gives the same ids. */
function countingBytes(seed: number): RandomBytes {
  let n = seed;
  return (target) => target.forEach((_, i) => (target[i] = n++ & 0xff));
}

/** A tiny fixed-mode world: a counter that agents bump. */
function buildWorld(header: RecordingHeader): ReplayWorld {
  const capsule = createCapsule({
    world: { name: 'Counter', kind: 'abstract' },
    validators: ajvValidators(),
    clock: new ManualClock(),
    tickMode: 'fixed',
    tickRateHz: 10,
    randomBytes: countingBytes(header.seed),
  });
  let count = 0;
  capsule.registerTool({
    id: 'bump',
    class: 'actuator',
    description: 'Adds to the counter.',
    input_schema: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] },
    output_schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    handler: ({ by }: { by: number }) => {
      count += by;
      capsule.emit('state_change', { entity: 'counter', field: 'count', value: count });
      return { count };
    },
  });
  return {
    capsule,
    connect: (character: string, link: Link) => capsule.connect(link, { character, agentModel: { class: 'edge_small' }, subscriptions: ['state_change'] }),
  };
}

const header: RecordingHeader = { format: 'aicc-recording/2', world: 'counter', seed: 7, ticks: 20 };

/** What a pilot's decision cost, as a host with a pilot writes it into the recording. */
const cost = (decision: number): RecordedDecisionCost => ({
  decision,
  startedAt: decision * 300,
  firstTokenMs: 120,
  replyMs: 250,
  firstToolCallMs: 250,
  totalMs: 300,
  inputTokens: 900,
  outputTokens: 12,
  costUsd: 0.0004,
  calls: 1,
  ended: 'replied',
});

/**
 * Two agents bump the counter at their own pace; one of them makes a mistake now and then. With
 * `decisions`, the host also writes what ada's "pilot" decided at ticks 5 and 10 (decision lines).
 */
async function recordRun(options: { decisions?: boolean } = {}): Promise<string> {
  const world = buildWorld(header);
  const { capsule } = world;
  let text = '';
  const recorder = new Recorder(capsule, header, (line) => (text += line));
  const agents: AgentClient[] = [];
  for (const [character, seed] of [
    ['ada', 100],
    ['bob', 200],
  ] as const) {
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    const connecting = AgentClient.connect(agentEnd, { clock: capsule.clock, randomBytes: countingBytes(seed) });
    world.connect(character, bridgeEnd);
    agents.push(await connecting);
  }
  for (let tick = 1; tick <= header.ticks; tick++) {
    capsule.step(100);
    await settle();
    if (tick % 3 === 0) void agents[0]!.call('bump', { by: 1 });
    if (tick % 4 === 0) void agents[1]!.call('bump', tick % 8 === 0 ? { by: 'two' } : { by: 2 });
    if (options.decisions === true && tick % 5 === 0 && tick <= 10) recorder.decision('ada', cost(tick / 5));
    await settle();
  }
  for (const agent of agents) await agent.close();
  recorder.stop();
  recorder.decision('ada', cost(3)); // after the end line: not written
  expect(recorder.problems).toEqual([]);
  return text;
}

describe('recording', () => {
  it('writes a header and one checked line per message', async () => {
    const text = await recordRun();
    const recording = parseRecording(text);
    expect(recording.header).toEqual(header);
    const types = recording.entries.map((e) => `${e.dir} ${e.message.type}`);
    expect(types.filter((t) => t === 'in tool_call')).toHaveLength(11);
    // The last call waits for a tick that never comes: the session closes first.
    expect(types.filter((t) => t === 'out tool_result')).toHaveLength(10);
    expect(types.slice(0, 2)).toEqual(['out session_init', 'out session_init']);
  });

  it('ends with an end line that counts the entries and names the last tick', async () => {
    const text = await recordRun();
    const lines = text.trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ end: true, tick: 20, entries: lines.length - 2 });
    expect(parseRecording(text).end).toEqual({ end: true, tick: 20, entries: lines.length - 2 });
  });

  it('replays with every tool_result and event matching', async () => {
    const recording = parseRecording(await recordRun());
    const report = await replay(recording, buildWorld);
    expect(report.mismatches).toEqual([]);
    expect(report.matched).toBe(true);
    expect(report.agreed.tool_result).toBe(10);
    expect(report.agreed.event).toBe(report.compared.event);
    expect(report.compared.event).toBeGreaterThan(0);
  });

  it('reports the first difference when the world behaves differently', async () => {
    const text = await recordRun();
    const doctored = text.replace('"count":3', '"count":33');
    const report = await replay(parseRecording(doctored), buildWorld);
    expect(report.matched).toBe(false);
    expect(report.mismatches[0]).toMatchObject({
      expected: { type: 'tool_result', output: { count: 33 } },
      actual: { type: 'tool_result', output: { count: 3 } },
    });
  });

  describe("a pilot's decision lines", () => {
    it('are written at the tick they end, checked, counted by the end line, and read back apart from the messages', async () => {
      const plain = parseRecording(await recordRun());
      const text = await recordRun({ decisions: true });
      const lines = text.trimEnd().split('\n');
      const decisionLines = lines.filter((line) => line.includes('"decision":{'));
      expect(decisionLines.map((line) => JSON.parse(line))).toEqual([
        { tick: 5, at: 500, character: 'ada', decision: cost(1) },
        { tick: 10, at: 1000, character: 'ada', decision: cost(2) },
      ]);
      const recording = parseRecording(text);
      expect(recording.decisions.map((d) => d.decision.decision)).toEqual([1, 2]);
      expect(recording.entries).toEqual(plain.entries);
      expect(recording.end.entries).toBe(lines.length - 2);
      expect(plain.decisions).toEqual([]);
    });

    it('are passed over by replay: it matches as it does without them', async () => {
      const report = await replay(parseRecording(await recordRun({ decisions: true })), buildWorld);
      expect(report.matched).toBe(true);
      expect(report.agreed.tool_result).toBe(10);
    });

    it('are rejected with their line when they break the shape', async () => {
      const text = await recordRun({ decisions: true });
      const lines = text.trimEnd().split('\n');
      const at = lines.findIndex((line) => line.includes('"decision":{'));
      const edited = (edit: (line: Record<string, any>) => void): RecordingError => {
        const copy = [...lines];
        const line = JSON.parse(copy[at]!);
        edit(line);
        copy[at] = JSON.stringify(line);
        try {
          parseRecording(copy.map((l) => `${l}\n`).join(''));
        } catch (error) {
          return error as RecordingError;
        }
        throw new Error('expected a RecordingError');
      };
      expect(edited((l) => (l.decision.totalMs = -1))).toMatchObject({ line: at + 1, reason: 'decision.totalMs must be a number >= 0' });
      expect(edited((l) => (l.decision.inputTokens = 1.5))).toMatchObject({
        line: at + 1,
        reason: 'decision.inputTokens must be an integer >= 0 when present',
      });
      expect(edited((l) => (l.decision.mood = 'calm'))).toMatchObject({
        line: at + 1,
        reason: 'decision.mood is not a field of a decision line (see docs/RECORDING.md)',
      });
      expect(edited((l) => (l.decision.ended = 'done'))).toMatchObject({
        line: at + 1,
        reason: 'decision.ended must be one of "replied", "send_failed", "reply_failed", "aborted", "stopped"',
      });
      expect(edited((l) => (l.dir = 'in'))).toMatchObject({ line: at + 1, reason: 'a decision line has tick, at, character and decision only, not "dir"' });
      expect(edited((l) => (l.character = 'zed'))).toMatchObject({ line: at + 1, reason: 'a decision of zed before its session_init' });
      expect(edited((l) => (l.tick = 1))).toMatchObject({ line: at + 1, reason: expect.stringMatching(/^tick 1 comes after tick \d+$/) });
    });
  });

  describe('a corrupted recording is rejected with its line number', () => {
    const rejection = (text: string): RecordingError => {
      try {
        parseRecording(text);
      } catch (error) {
        return error as RecordingError;
      }
      throw new Error('expected a RecordingError');
    };
    /** The recording with its lines edited, every line ending with its newline as the recorder writes it. */
    const corrupt = async (edit: (lines: string[]) => void): Promise<RecordingError> => {
      const lines = (await recordRun()).trimEnd().split('\n');
      edit(lines);
      return rejection(lines.map((line) => `${line}\n`).join(''));
    };

    it('a line that is not JSON', async () => {
      const error = await corrupt((lines) => (lines[4] = lines[4]!.slice(0, 20)));
      expect(error).toBeInstanceOf(RecordingError);
      expect(error.line).toBe(5);
      expect(error.message).toMatch(/^line 5: not JSON/);
    });

    it('a message that breaks the schema', async () => {
      const error = await corrupt((lines) => (lines[6] = lines[6]!.replace('"protocol":"aicc/0.1"', '"protocol":"aicc/2"')));
      expect(error.line).toBe(7);
      expect(error.reason).toMatch(/^message: protocol must be "aicc\/0.1"/);
    });

    it('ticks that go back', async () => {
      const error = await corrupt((lines) => {
        const entry = JSON.parse(lines[lines.length - 2]!);
        entry.tick = 0;
        lines[lines.length - 2] = JSON.stringify(entry);
      });
      expect(error.line).toBeGreaterThan(2);
      expect(error.reason).toMatch(/comes after tick/);
    });

    it('a recording cut off mid-line, at any point of its last lines', async () => {
      const text = await recordRun();
      const lineCount = text.split('\n').length - 1;
      // Cut inside the end line, just before its newline, and inside the entry before it.
      for (const cut of [text.length - 5, text.length - 1, text.lastIndexOf('\n', text.length - 2) - 7]) {
        const partial = text.slice(0, cut);
        const line = partial.split('\n').length;
        const error = rejection(partial);
        expect(error.line).toBe(line);
        expect(error.reason).toBe(`cut off mid-line: the file ends inside line ${line}, with no newline; the recording was truncated`);
        expect(line).toBeGreaterThanOrEqual(lineCount - 1);
      }
    });

    it('a recording that stops at the end of a line, without its end line', async () => {
      const error = await corrupt((lines) => lines.splice(-3));
      const lines = (await recordRun()).trimEnd().split('\n');
      expect(error.line).toBe(lines.length - 2);
      expect(error.reason).toBe(`no end line: the recording stops after line ${lines.length - 3}, cut short (a run that was killed, or a truncated copy)`);
    });

    it('lines missing before the end line', async () => {
      const error = await corrupt((lines) => lines.splice(-4, 2));
      const lines = (await recordRun()).trimEnd().split('\n');
      expect(error.line).toBe(lines.length - 2);
      expect(error.reason).toBe(`the end line counts ${lines.length - 2} entries, but ${lines.length - 4} come before it: lines are missing`);
    });

    it('a line after the end line', async () => {
      const error = await corrupt((lines) => lines.push(lines[3]!));
      const lines = (await recordRun()).trimEnd().split('\n');
      expect(error.line).toBe(lines.length + 1);
      expect(error.reason).toBe(`a line after the end line (line ${lines.length}): two recordings joined, or lines added`);
    });

    it('an empty recording', () => {
      expect(rejection('')).toMatchObject({ line: 1, reason: 'the recording is empty; expected a header line' });
    });

    it('a bad header', async () => {
      const error = await corrupt((lines) => (lines[0] = '{"format":"something-else"}'));
      expect(error.line).toBe(1);
    });
  });
});
