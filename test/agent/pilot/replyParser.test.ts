import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeUnreadable, isUsable, MAX_REPLY_CHARS, parseReply, replyFeedback } from '../../../src/agent/pilot/replyParser.js';

const GO_NORTH = { tool: 'go', input: { direction: 'north' } };
const LOOK = { tool: 'look', input: {} };

/** The calls read, without their line numbers. */
function calls(reply: string | null, knownTools?: string[]) {
  return parseReply(reply, knownTools === undefined ? {} : { knownTools: new Set(knownTools) }).calls.map(({ tool, input }) => ({ tool, input }));
}

describe('the canonical form', () => {
  it('reads one call per line of an aicc block, in order, and ignores the text around it', () => {
    const reply = 'I should head north and look.\n```aicc\n{"tool":"go","input":{"direction":"north"}}\n{"tool":"look","input":{}}\n```\nThat is all.';
    const parsed = parseReply(reply);
    expect(parsed.calls).toEqual([
      { ...GO_NORTH, line: 1 },
      { ...LOOK, line: 2 },
    ]);
    expect(parsed).toMatchObject({ unreadable: [], slips: [], source: 'aicc', waits: false });
  });

  it('reads an empty aicc block as "wait for news", which is a usable reply', () => {
    const parsed = parseReply('Nothing to do yet.\n```aicc\n```');
    expect(parsed.waits).toBe(true);
    expect(parsed.calls).toEqual([]);
    expect(isUsable(parsed)).toBe(true);
  });

  it('prefers the aicc block over other fences, whose JSON is then only prose', () => {
    expect(calls('An example: ```json\n{"tool":"say","input":{"text":"no"}}\n```\n```aicc\n{"tool":"look"}\n```')).toEqual([LOOK]);
  });

  it('reads a call written over several lines', () => {
    expect(calls('```aicc\n{\n  "tool": "go",\n  "input": { "direction": "north" }\n}\n```')).toEqual([GO_NORTH]);
  });

  it('ends a block at a fence outside the calls: a ``` inside a string is text (fast-check found one in a key)', () => {
    const say = { tool: 'say', input: { text: 'wrap code in ``` fences, "quoted" too' } };
    expect(calls(`\`\`\`aicc\n${JSON.stringify(say)}\n{"tool":"look","input":{}}\n\`\`\``)).toEqual([say, LOOK]);
    expect(calls('```aicc\n{"tool":"go","input":{"```":0}}\n{"tool":"look","input":{}}\n```\nand done')).toEqual([{ tool: 'go', input: { '```': 0 } }, LOOK]);
    // Closed on the line of the last call, or inline on one line: still closed there.
    expect(parseReply('```aicc\n{"tool":"look","input":{}}```\nthen {"tool":"go"}')).toMatchObject({ calls: [LOOK], slips: [] });
    expect(parseReply('```aicc {"tool":"say","input":{"text":"```"}}``` done')).toMatchObject({ calls: [{ tool: 'say', input: { text: '```' } }], slips: [] });
    // A stray quote in prose ends with its line: it hides no fence after it.
    expect(parseReply('```aicc\n{"tool":"look","input":{}} "oops\n```\n{"tool":"go"}')).toMatchObject({ calls: [LOOK] });
  });

  it('skips comments in a block', () => {
    expect(parseReply('```aicc\n// first, move\n{"tool":"go","input":{"direction":"north"}}\n# then look\n{"tool":"look"}\n```')).toMatchObject({
      calls: [GO_NORTH, LOOK],
      unreadable: [],
    });
  });
});

describe('forgiven slips', () => {
  it('a ```json fence', () => {
    const parsed = parseReply('```json\n{"tool":"go","input":{"direction":"north"}}\n```');
    expect(parsed.calls).toMatchObject([GO_NORTH]);
    expect(parsed.slips).toEqual(['json_fence']);
    expect(parsed.source).toBe('fence');
  });

  it('a fence without a label', () => {
    expect(parseReply('```\n{"tool":"look"}\n```')).toMatchObject({ calls: [LOOK], slips: ['other_fence'] });
  });

  it('a missing fence: calls in the prose are read, the prose is not', () => {
    const parsed = parseReply('I [think] I will go: {"tool":"go","input":{"direction":"north"}} and then {"tool":"look"}. Done {really}.');
    expect(parsed.calls).toMatchObject([GO_NORTH, LOOK]);
    expect(parsed.unreadable).toEqual([]);
    expect(parsed.slips).toEqual(['no_fence']);
  });

  it('a fence never closed', () => {
    expect(parseReply('```aicc\n{"tool":"look"}')).toMatchObject({ calls: [LOOK], slips: ['unclosed_fence'] });
  });

  it('trailing commas', () => {
    expect(parseReply('```aicc\n{"tool":"go","input":{"direction":"north",},}\n```')).toMatchObject({ calls: [GO_NORTH], slips: ['trailing_comma'] });
  });

  it('single quotes, with an apostrophe and a double quote inside', () => {
    const parsed = parseReply(`\`\`\`aicc\n{'tool': 'say', 'input': {'text': 'I\\'m "here"'}}\n\`\`\``);
    expect(parsed.calls).toMatchObject([{ tool: 'say', input: { text: 'I\'m "here"' } }]);
    expect(parsed.slips).toEqual(['single_quotes']);
  });

  it('bare keys and Python literals', () => {
    expect(parseReply('```aicc\n{tool: "take", input: {item: "lute", quietly: True}}\n```')).toMatchObject({
      calls: [{ tool: 'take', input: { item: 'lute', quietly: true } }],
      slips: ['bare_keys', 'python_literals'],
    });
  });

  it('the {"name", "arguments"} shape, arguments as an object or as a JSON string', () => {
    const parsed = parseReply('```aicc\n{"name":"go","arguments":{"direction":"north"}}\n{"name":"say","arguments":"{\\"text\\":\\"hi\\"}"}\n```');
    expect(parsed.calls).toMatchObject([GO_NORTH, { tool: 'say', input: { text: 'hi' } }]);
    expect(parsed.slips).toEqual(['name_arguments', 'arguments_string']);
  });

  it('OpenAI\'s {"type": "function", "function": {…}} shape', () => {
    expect(calls('```aicc\n{"type":"function","function":{"name":"go","arguments":"{\\"direction\\":\\"north\\"}"}}\n```')).toEqual([GO_NORTH]);
  });

  it('the {"tool", "args"} shape, and "parameters"', () => {
    const parsed = parseReply('```aicc\n{"tool":"go","args":{"direction":"north"}}\n{"tool":"look","parameters":{}}\n```');
    expect(parsed.calls).toMatchObject([GO_NORTH, LOOK]);
    expect(parsed.slips).toEqual(['tool_args']);
  });

  it('input fields written beside the tool', () => {
    expect(parseReply('```aicc\n{"tool":"go","direction":"north"}\n```')).toMatchObject({ calls: [GO_NORTH], slips: ['flat_input'] });
  });

  it('a JSON array of calls', () => {
    expect(parseReply('```aicc\n[{"tool":"go","input":{"direction":"north"}}, {"tool":"look"}]\n```')).toMatchObject({
      calls: [GO_NORTH, LOOK],
      slips: ['array'],
    });
  });

  it('a {"calls": […]} wrapper', () => {
    expect(parseReply('```json\n{"calls":[{"tool":"look"}]}\n```')).toMatchObject({ calls: [LOOK], slips: ['json_fence', 'wrapper'] });
  });

  it('calls on one line separated by ";"', () => {
    const parsed = parseReply('```aicc\n{"tool":"go","input":{"direction":"north"}}; {"tool":"look"};\n```');
    expect(parsed.calls).toMatchObject([GO_NORTH, LOOK]);
    expect(parsed.slips).toEqual(['semicolons']);
  });

  it('{"<tool id>": input}, when the id is a known tool', () => {
    expect(calls('```aicc\n{"go":{"direction":"north"}}\n```', ['go', 'look'])).toEqual([GO_NORTH]);
    expect(parseReply('```aicc\n{"go":{"direction":"north"}}\n```').calls).toEqual([]);
  });

  it('several slips at once', () => {
    expect(calls("Here: {'name': 'go', 'arguments': {'direction': 'north',}}; {'name': 'look'}")).toEqual([GO_NORTH, LOOK]);
  });
});

describe('what cannot be read', () => {
  it('names each unreadable line, and keeps the calls on the other lines', () => {
    const reply = [
      '```aicc',
      '{"tool":"look"}',
      '{"tool":"go" "input":{"direction":"east"}}',
      'go north',
      '{"tool":"go","input":{"direction":"south"}',
      '{"tool":"who"}',
      '```',
    ].join('\n');
    const parsed = parseReply(reply);
    expect(parsed.calls.map((call) => [call.tool, call.line])).toEqual([
      ['look', 1],
      ['who', 5],
    ]);
    expect(parsed.unreadable.map(describeUnreadable)).toEqual([
      `I could not read line 2: {"tool":"go" "input":{"direction":"east"}} (Expected ',' or '}' after property value)`,
      'I could not read line 3: go north (not a JSON object; write {"tool": "<id>", "input": {…}})',
      'I could not read line 4: {"tool":"go","input":{"direction":"south"} (its brackets do not balance; it ends before its closing })',
    ]);
  });

  it('says what is wrong with a value that parses but is no call', () => {
    const parsed = parseReply('```aicc\n{"direction":"north"}\n{"tool":"go","input":"north"}\n42\n```');
    expect(parsed.unreadable.map((problem) => [problem.line, problem.reason])).toEqual([
      [1, 'no tool named; write {"tool": "<id>", "input": {…}}'],
      [2, 'the input of go must be a JSON object'],
      [3, 'not a JSON object; write {"tool": "<id>", "input": {…}}'],
    ]);
  });

  it('names the block too when the reply has several', () => {
    const parsed = parseReply('```aicc\n{"tool":"look"}\n```\nand\n```aicc\nwalk\n```');
    expect(parsed.calls).toMatchObject([LOOK]);
    expect(parsed.unreadable.map(describeUnreadable)).toEqual([
      'I could not read block 2, line 1: walk (not a JSON object; write {"tool": "<id>", "input": {…}})',
    ]);
  });

  it('cuts a long unreadable line in the message', () => {
    const long = `{"tool":"say","input":{"text":"${'la'.repeat(100)}"}`;
    const [problem] = parseReply(`\`\`\`aicc\n${long}\n\`\`\``).unreadable;
    expect(describeUnreadable(problem!)).toMatch(/^I could not read line 1: \{"tool":"say","input":\{"text":"(la)+l?…/);
    expect(describeUnreadable(problem!).length).toBeLessThan(200);
  });

  it('feedback for a reply with nothing to act on: empty, or prose only', () => {
    expect(replyFeedback(parseReply(null), null)).toEqual(['Your reply was empty. Reply with an aicc block of calls, or an empty aicc block to wait.']);
    expect(replyFeedback(parseReply('   '), '   ')).toHaveLength(1);
    const prose = 'I would like to go north, please.';
    expect(isUsable(parseReply(prose))).toBe(false);
    expect(replyFeedback(parseReply(prose), prose)).toEqual([
      'I found no calls in your reply. Put them in an aicc block, one {"tool": "<id>", "input": {…}} per line.',
    ]);
  });

  it('feedback for a usable reply lists only its unreadable lines', () => {
    const reply = '```aicc\n{"tool":"look"}\nrun!\n```';
    expect(replyFeedback(parseReply(reply), reply)).toEqual(['I could not read line 2: run! (not a JSON object; write {"tool": "<id>", "input": {…}})']);
  });

  it('reads a bounded amount: a hostile reply is cut, said to be cut, and read in linear time', () => {
    for (const hostile of ['{['.repeat(40_000), '[ '.repeat(20_000), '{"a":'.repeat(10_000)]) {
      const started = performance.now();
      const parsed = parseReply(hostile);
      expect(performance.now() - started).toBeLessThan(1_000); // about 20 ms; a rescan per bracket took seconds
      expect(parsed.calls).toEqual([]);
      expect(parsed.unreadable.map((problem) => problem.reason)).toEqual(['too many unclosed brackets; I stopped reading here']);
      expect(replyFeedback(parsed, hostile)).toContain(`Your reply was cut at ${MAX_REPLY_CHARS} characters; keep replies short.`);
    }
    // Thousands of ordinary calls are still all read.
    expect(parseReply('x {"tool":"look"} '.repeat(1_500)).calls).toHaveLength(1_500);
  });
});

describe('one call per line and calls spread over lines', () => {
  const call = fc.record({
    tool: fc.constantFrom('go', 'look', 'say', 'take'),
    input: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null))),
  });

  it('read the same calls: JSON.parse splits the first, the bracket scanner the second', () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 5 }), (written) => {
        const oneLine = `\`\`\`aicc\n${written.map((c) => JSON.stringify(c)).join('\n')}\n\`\`\``;
        const spread = `\`\`\`aicc\n${written.map((c) => JSON.stringify(c, null, 2)).join('\n')}\n\`\`\``;
        const a = parseReply(oneLine);
        const b = parseReply(spread);
        expect(calls(oneLine)).toEqual(written);
        expect(calls(spread)).toEqual(written);
        expect([a.unreadable, a.slips, a.source]).toEqual([b.unreadable, b.slips, b.source]);
        expect(a.calls.map((c) => c.line)).toEqual(written.map((_, i) => i + 1));
      }),
    );
  });

  it('leaves a block with anything but one JSON value per line to the scanner, which reads and reports it', () => {
    const parsed = parseReply('```aicc\n{"tool":"look","input":{}} // then wait\n{"tool":"go","input":{"direction":"north"}};\n```');
    expect(parsed.calls.map(({ tool, input }) => ({ tool, input }))).toEqual([LOOK, GO_NORTH]);
    expect(parsed.slips).toContain('semicolons');
  });
});
