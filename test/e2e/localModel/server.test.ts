// The local model harness (test/support/localModel/): a real SmolLM2-135M-Instruct (or Gemma 3 270M)
// on node-llama-cpp behind an OpenAI-compatible endpoint on loopback. The endpoint answers as OpenAI
// does — plain and streamed, text and tool calls (arguments valid against the tool's schema), usage,
// 400s, a bounded queue — and pi's own OpenAI client (pi-ai 0.73) gets a tool call back through it.
// What the model says is not checked: only that it is a well-formed reply.

import { complete, stream } from '@mariozechner/pi-ai';
import Ajv, { type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithLocalModel, type LocalModel, localPiAiModel, startLocalModel } from '../../support/localModel/index.js';

const MOVE_TOOL = {
  type: 'function',
  function: {
    name: 'move_to',
    description: 'Move the character to a cell of the grid.',
    parameters: {
      type: 'object',
      properties: {
        x: { type: 'integer', description: 'Column' },
        y: { type: 'integer', description: 'Row' },
        speed: { type: 'string', enum: ['walk', 'run'] },
      },
      required: ['x', 'y', 'speed'],
      additionalProperties: false,
    },
  },
} as const;
const SAY_TOOL = {
  type: 'function',
  function: {
    name: 'say',
    description: 'Say something out loud.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
} as const;
const TOOLS = [MOVE_TOOL, SAY_TOOL];
const ajv = new Ajv({ strict: false });
const validators = new Map<string, ValidateFunction>(TOOLS.map((tool) => [tool.function.name, ajv.compile(tool.function.parameters)]));

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Asserts a call names an offered tool and its arguments are JSON valid against that tool's schema. */
function expectWellFormedCall(call: ToolCall): Record<string, unknown> {
  expect(call.type).toBe('function');
  expect(call.id).toMatch(/^call_/);
  const validate = validators.get(call.function.name);
  expect(validate, `a call to an offered tool, not ${call.function.name}`).toBeDefined();
  const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
  expect(validate!(args), JSON.stringify(validate!.errors)).toBe(true);
  return args;
}

/** The `data:` payloads of a server-sent event stream, in order ([DONE] included). */
async function sseEvents(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      expect(block.startsWith('data: '), block).toBe(true);
      return block.slice('data: '.length);
    });
}

await describeWithLocalModel('a real small model behind an OpenAI-compatible endpoint', () => {
  let model: LocalModel;
  const post = (body: object, signal?: AbortSignal): Promise<Response> =>
    fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const ask = (body: object, signal?: AbortSignal) => post({ model: model.modelId, temperature: 0, ...body }, signal);

  beforeAll(async () => {
    // Two at most in the queue (one running, one waiting), so the test of 429 needs only four requests.
    model = await startLocalModel({ queue: 2 });
  }, 240_000);
  afterAll(async () => {
    const pid = model?.pid;
    await model?.stop();
    if (pid !== undefined) expect(() => process.kill(pid, 0)).toThrow();
  }, 20_000);

  it('lists its one model', async () => {
    const response = await fetch(`${model.baseUrl}/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; data: Array<{ id: string; object: string }> };
    expect(body.object).toBe('list');
    expect(body.data).toEqual([expect.objectContaining({ id: model.modelId, object: 'model' })]);
  });

  it('answers a plain chat completion in text, with usage', async () => {
    const response = await ask({
      messages: [
        { role: 'system', content: 'You are brief.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      max_tokens: 24,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ object: 'chat.completion', model: model.modelId, choices: [{ index: 0, message: { role: 'assistant' } }] });
    expect(body.id).toMatch(/^chatcmpl-/);
    const choice = body.choices[0];
    expect(['stop', 'length']).toContain(choice.finish_reason);
    expect(typeof choice.message.content).toBe('string');
    expect(choice.message.content.length).toBeGreaterThan(0);
    expect(choice.message.tool_calls).toBeUndefined();
    expect(body.usage.prompt_tokens).toBeGreaterThan(5);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(24);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.prompt_tokens_details.cached_tokens).toBeLessThan(body.usage.prompt_tokens);
  }, 60_000);

  it('calls a tool with well-formed JSON arguments that match its schema', async () => {
    const response = await ask({ messages: [{ role: 'user', content: 'Move the character to x=3, y=7, walking.' }], tools: TOOLS });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    const choice = body.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls.length).toBeGreaterThan(0);
    for (const call of choice.message.tool_calls) expectWellFormedCall(call);
    // A second request that shares the prompt's head finds it in the context already.
    const again = (await (await ask({ messages: [{ role: 'user', content: 'Move the character to x=5, y=1, running.' }], tools: TOOLS })).json()) as any;
    expect(again.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(again.usage.prompt_tokens / 2);
  }, 60_000);

  it('honours tool_choice: a named function, and none', async () => {
    const named = (await (
      await ask({ messages: [{ role: 'user', content: 'Greet the player.' }], tools: TOOLS, tool_choice: { type: 'function', function: { name: 'say' } } })
    ).json()) as any;
    expect(named.choices[0].finish_reason).toBe('tool_calls');
    for (const call of named.choices[0].message.tool_calls) {
      expect(call.function.name).toBe('say');
      expectWellFormedCall(call);
    }
    const none = (await (
      await ask({ messages: [{ role: 'user', content: 'Move to x=1, y=2.' }], tools: TOOLS, tool_choice: 'none', max_tokens: 16 })
    ).json()) as any;
    expect(none.choices[0].message.tool_calls).toBeUndefined();
    expect(typeof none.choices[0].message.content).toBe('string');
  }, 60_000);

  it('takes a conversation with a tool call and its result, and answers well-formed', async () => {
    const messages = [
      { role: 'user', content: 'Move the character to x=3, y=7, walking.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'move_to', arguments: '{"x":3,"y":7,"speed":"walk"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'The character is now at (3, 7).' },
    ];
    const body = (await (await ask({ messages, tools: TOOLS, max_tokens: 48 })).json()) as any;
    const choice = body.choices[0];
    // The same call again would be the model repeating itself: the server answers in words instead.
    if (choice.finish_reason === 'tool_calls') {
      for (const call of choice.message.tool_calls) {
        const args = expectWellFormedCall(call);
        expect(call.function.name === 'move_to' && args['x'] === 3 && args['y'] === 7 && args['speed'] === 'walk').toBe(false);
      }
    } else {
      expect(['stop', 'length']).toContain(choice.finish_reason);
      expect(typeof choice.message.content).toBe('string');
    }
  }, 60_000);

  it('streams a tool call as OpenAI does: deltas, a finish reason, a usage chunk, [DONE]', async () => {
    const response = await ask({
      messages: [{ role: 'user', content: 'Move the character to x=2, y=9, running.' }],
      tools: TOOLS,
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await sseEvents(response);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data) as any);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: model.modelId, id: chunks[0].id });
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    // Assemble the calls from their deltas, by index.
    const calls: ToolCall[] = [];
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0]?.delta?.tool_calls ?? []) {
        if (delta.id !== undefined)
          calls[delta.index] = { id: delta.id, type: delta.type, function: { name: delta.function.name, arguments: delta.function.arguments ?? '' } };
        else calls[delta.index]!.function.arguments += delta.function.arguments;
      }
    }
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expectWellFormedCall(call);
    const argumentDeltas = chunks.filter((chunk) => chunk.choices[0]?.delta?.tool_calls?.[0]?.id === undefined && chunk.choices[0]?.delta?.tool_calls);
    expect(argumentDeltas.length).toBeGreaterThan(0);
    const finish = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish.map((chunk) => chunk.choices[0].finish_reason)).toEqual(['tool_calls']);
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage.prompt_tokens).toBeGreaterThan(0);
    expect(last.usage.completion_tokens).toBeGreaterThan(0);
    expect(last.usage.total_tokens).toBe(last.usage.prompt_tokens + last.usage.completion_tokens);
  }, 60_000);

  it('streams text in content deltas', async () => {
    const response = await ask({ messages: [{ role: 'user', content: 'Count from one to five.' }], stream: true, max_tokens: 20 });
    const events = await sseEvents(response);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data) as any);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(['stop', 'length']).toContain(chunks.at(-1).choices[0].finish_reason);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  }, 60_000);

  it('answers a malformed request with an OpenAI-style 400, and an unknown model with 404', async () => {
    const raw = await fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
    const cases: Array<[object, string | null]> = [
      [{ messages: [] }, 'messages'],
      [{ messages: 'hello' }, 'messages'],
      [{ messages: [{ role: 'wizard', content: 'hi' }] }, 'messages[0].role'],
      [{ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }, 'messages[0].tool_call_id'],
      [{ messages: [{ role: 'user', content: 'hi' }], tool_choice: 'required' }, 'tool_choice'],
      [{ messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'bad name!' } }] }, 'tools[0].function.name'],
      [{ messages: [{ role: 'user', content: 'hi' }], temperature: 7 }, 'temperature'],
      [{ messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 }, 'max_tokens'],
      [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }] }, 'messages[0].content[0].type'],
    ];
    for (const [body, param] of cases) {
      const response = await ask(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = ((await response.json()) as any).error;
      expect(error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const unknown = await post({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('model_not_found');
  }, 60_000);

  it('serves one request at a time, answers 429 past its queue, and survives a client that goes away', async () => {
    // The first streams until aborted, the second waits; the third and fourth find the queue (2) full.
    const abort = new AbortController();
    const first = await ask({ messages: [{ role: 'user', content: 'Tell me a long story about a dragon.' }], stream: true, max_tokens: 200 }, abort.signal);
    const waiting = ask({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 4 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [third, fourth] = await Promise.all([1, 2].map(() => ask({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 4 })));
    expect([third!.status, fourth!.status]).toEqual([429, 429]);
    expect(((await third!.json()) as any).error.code).toBe('rate_limit_exceeded');
    const reader = first.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel().catch(() => {});
    const second = await waiting;
    expect(second.status).toBe(200);
    expect(((await second.json()) as any).choices[0].message.content).toEqual(expect.any(String));
  }, 60_000);

  it("gets a tool call back through pi's own OpenAI client (pi-ai 0.73 complete and stream)", async () => {
    const piModel = localPiAiModel(model);
    const tools = [{ name: 'move_to', description: MOVE_TOOL.function.description, parameters: MOVE_TOOL.function.parameters as any }];
    const context = {
      systemPrompt: 'You control a character in a grid world.',
      messages: [{ role: 'user' as const, content: 'Move the character to x=4, y=6, walking.', timestamp: Date.now() }],
      tools,
    };
    const message = await complete(piModel as any, context, { apiKey: 'none' });
    expect(message.errorMessage).toBeUndefined();
    expect(message.stopReason).toBe('toolUse');
    const calls = message.content.filter((block) => block.type === 'toolCall');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.name).toBe('move_to');
      expect(validators.get('move_to')!(call.arguments)).toBe(true);
    }
    expect(message.usage.input + message.usage.cacheRead).toBeGreaterThan(0);
    expect(message.usage.output).toBeGreaterThan(0);

    const events: string[] = [];
    const streamed = stream(piModel as any, context, { apiKey: 'none' });
    for await (const event of streamed) events.push(event.type);
    const result = await streamed.result();
    expect(result.stopReason).toBe('toolUse');
    expect(events).toContain('toolcall_end');
    expect(events.at(-1)).toBe('done');
    const streamedCall = result.content.find((block) => block.type === 'toolCall');
    expect(streamedCall && validators.get(streamedCall.name)!(streamedCall.arguments)).toBe(true);
  }, 90_000);
});
