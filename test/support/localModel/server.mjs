// An OpenAI-compatible chat-completions endpoint over one small local model (node-llama-cpp, CPU,
// one thread), for tests that want a real model behind `openai-completions`: pi-ai, pi, the project's
// own clients. Plain ESM, run by the machine's node:
//
//   node server.mjs --runtime DIR --model-path FILE.gguf --model-id ID [--port 0] [--ctx 8192]
//                   [--queue 8] [--default-max-tokens 512] [--max-arg-chars 256] [--exit-with-stdin]
//
// `--runtime` is the folder whose node_modules holds node-llama-cpp (install.mjs puts it in the
// tests' cache). Binds 127.0.0.1 only; prints one ready line on stdout,
// `{"event":"aicc-local-model-ready","port":…,"model":…,"loadMs":…}`, and one JSON line per request
// on stderr (AICC_LOCAL_MODEL_DEBUG=1 adds the raw output of each pass). SIGTERM/SIGINT (or stdin
// closing, with --exit-with-stdin) stop it.
//
// Routes: GET /v1/models, GET /v1/models/:id, GET /health, POST /tokenize ({content} → {tokens}, as
// llama.cpp's server), POST /v1/chat/completions with messages
// (system/developer, user, assistant with tool_calls, tool), tools, tool_choice, max_tokens /
// max_completion_tokens, temperature, top_p, seed, stop, parallel_tool_calls, response_format
// (text, json_object, json_schema), stream and stream_options.include_usage. Other fields (store,
// metadata, prompt_cache_key, frequency and presence penalties, logit_bias, logprobs, …) are accepted
// and ignored. Requests run one at a time in arrival
// order; past --queue (the running one included) they get 429. Malformed requests get OpenAI-style
// 400s (404 for another model id).
//
// Tool calls. A model this small does not call tools reliably in free text, so the reply's shape is
// forced by a grammar (llama.cpp GBNF) and only the words are the model's. The tools are described in
// the system prompt the way SmolLM2 was trained on function calling, and the reply is constrained to
// `<tool_call>[ {"name": …, "arguments": …} ]</tool_call>`, the arguments to the tool's JSON schema
// (node-llama-cpp's schema-to-grammar, on the subset `toGrammarSchema` describes): every call is
// well-formed JSON naming an offered tool, with arguments of its schema's shape.
//   - tool_choice "required" or a named function: a call (to that tool) must come.
//   - "auto" (the default with tools): the list may be empty; then a second pass answers in plain
//     text, without the tool instructions. A call identical to one already made since the last user
//     message counts as no call (a tiny model repeats itself after a tool result; this is what lets
//     an agent's loop end).
//   - "none", or no tools: plain text, no grammar.
// One call per reply, up to 4 with parallel_tool_calls: true (the model's second call is mostly noise).
// Strings in arguments stop at --max-arg-chars unless the schema sets maxLength (a looping model ends).
// Where this differs from OpenAI: temperature defaults to 0 (greedy: repeatable tests); max_tokens
// defaults to --default-max-tokens; optional properties are left out of calls (the grammar writes
// every property it lists; an object schema without `required` lists all).
// usage: prompt_tokens is the request's rendered prompt (with the tool instructions when tools are
// offered); prompt_tokens_details.cached_tokens the part of it the context held already (llama.cpp
// reuses that prefix: the tool and text passes each keep a sequence of their own); completion_tokens
// counts every token generated, a discarded tool pass's as completion_tokens_details.reasoning_tokens.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    runtime: { type: 'string' },
    'model-path': { type: 'string' },
    'model-id': { type: 'string' },
    port: { type: 'string', default: '0' },
    ctx: { type: 'string', default: '8192' },
    queue: { type: 'string', default: '8' },
    'default-max-tokens': { type: 'string', default: '512' },
    'max-arg-chars': { type: 'string', default: '256' },
    'max-body-bytes': { type: 'string', default: String(8 * 1024 * 1024) },
    'exit-with-stdin': { type: 'boolean', default: false },
  },
});
if (!opts['model-path'] || !opts['model-id']) {
  console.error('server.mjs: --model-path and --model-id are required');
  process.exit(2);
}
const MODEL_ID = opts['model-id'];
const QUEUE_LIMIT = Number(opts.queue);
const MAX_BODY = Number(opts['max-body-bytes']);
/** Calls per reply when the request asks for parallel_tool_calls: true (one otherwise). */
const MAX_PARALLEL_CALLS = 4;
/** max_tokens when a request gives none: a tiny model that loops stops within seconds, not minutes. */
const DEFAULT_MAX_TOKENS = Number(opts['default-max-tokens']);
/** The longest string a tool argument may hold when its schema sets no maxLength (a looping model ends it). */
const MAX_ARG_CHARS = Number(opts['max-arg-chars']);
/** AICC_LOCAL_MODEL_DEBUG=1: log the raw constrained output of each tool pass. */
const DEBUG = process.env.AICC_LOCAL_MODEL_DEBUG === '1';
const FINGERPRINT = `fp_aicc_local_${randomBytes(4).toString('hex')}`;

const log = (record) => process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), ...record })}\n`);

// --- the model --------------------------------------------------------------------------------------

const nodeLlamaCpp = await import(
  opts.runtime ? pathToFileURL(join(opts.runtime, 'node_modules', 'node-llama-cpp', 'dist', 'index.js')).href : 'node-llama-cpp'
);
const { getLlama, LlamaChat, LlamaLogLevel } = nodeLlamaCpp;

const loadStarted = performance.now();
// One thread, always: with two on these 2-core machines generation collapses whenever anything else runs.
const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error, progressLogs: false });
const model = await llama.loadModel({ modelPath: opts['model-path'] });
const contextSize = Math.min(Number(opts.ctx), model.trainContextSize);
// Two sequences, each keeping the prompt it last evaluated: one for replies with tools offered, one for
// plain text. An agent's turn often takes both (no call, then words): with one sequence each would
// evict the other's prompt, and every request would evaluate the whole tool prompt again.
const context = await model.createContext({ contextSize, threads: 1, sequences: 2 });
const makeChat = () => {
  const sequence = context.getSequence();
  return { sequence, chat: new LlamaChat({ contextSequence: sequence, autoDisposeSequence: false }) };
};
const toolChat = makeChat();
const textChat = makeChat();
const loadMs = Math.round(performance.now() - loadStarted);

// --- errors -----------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message, { type = 'invalid_request_error', param = null, code = null } = {}) {
    super(message);
    this.status = status;
    this.body = { error: { message, type, param, code } };
  }
}
const bad = (message, param = null, code = null) => new ApiError(400, message, { param, code });

// --- request validation -----------------------------------------------------------------------------

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The text of a message's content: a string, null, or text parts. Other parts are refused. */
function contentText(content, param, { allowNull = false } = {}) {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) {
    if (allowNull) return '';
    throw bad(`${param}: content is required`, param);
  }
  if (!Array.isArray(content)) throw bad(`${param}: content must be a string or an array of content parts`, param);
  return content
    .map((part, i) => {
      if (!isObject(part)) throw bad(`${param}[${i}]: a content part must be an object`, `${param}[${i}]`);
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      throw bad(`${param}[${i}]: content part type ${JSON.stringify(part.type)} is not supported by ${MODEL_ID} (text only)`, `${param}[${i}].type`);
    })
    .join('\n');
}

function parseRequest(body) {
  if (!isObject(body)) throw bad('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw bad('you must provide a model parameter', 'model');
  if (body.model !== MODEL_ID)
    throw new ApiError(404, `The model \`${body.model}\` does not exist. This server has ${MODEL_ID}.`, { param: 'model', code: 'model_not_found' });
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw bad("Invalid 'messages': expected a non-empty array.", 'messages');
  const n = body.n ?? 1;
  if (n !== 1) throw bad("Invalid 'n': only n=1 is supported.", 'n');

  const number = (name, { min, max, integer = false }) => {
    const value = body[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max)
      throw bad(`Invalid '${name}': expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(value)}.`, name);
    return value;
  };
  const maxTokens = number('max_completion_tokens', { min: 1, max: 1e9, integer: true }) ?? number('max_tokens', { min: 1, max: 1e9, integer: true });
  const temperature = number('temperature', { min: 0, max: 2 }) ?? 0;
  const topP = number('top_p', { min: 0, max: 1 });
  const seed = number('seed', { min: -(2 ** 53), max: 2 ** 53, integer: true });
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw bad("Invalid 'stream': expected a boolean.", 'stream');
  if (body.stream_options !== undefined && body.stream_options !== null && !isObject(body.stream_options))
    throw bad("Invalid 'stream_options': expected an object.", 'stream_options');
  let stop = body.stop ?? [];
  if (typeof stop === 'string') stop = [stop];
  if (!Array.isArray(stop) || stop.length > 4 || stop.some((s) => typeof s !== 'string' || s === ''))
    throw bad("Invalid 'stop': expected a string or up to 4 non-empty strings.", 'stop');

  // tools
  const tools = body.tools ?? [];
  if (!Array.isArray(tools)) throw bad("Invalid 'tools': expected an array.", 'tools');
  const toolsByName = new Map();
  tools.forEach((tool, i) => {
    const param = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function))
      throw bad(`Invalid '${param}': expected {"type": "function", "function": {...}}.`, param);
    const { name, description, parameters } = tool.function;
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw bad(`Invalid '${param}.function.name': expected 1-64 letters, digits, _ or -.`, `${param}.function.name`);
    if (toolsByName.has(name)) throw bad(`Invalid 'tools': the name ${name} is used twice.`, 'tools');
    if (parameters !== undefined && !isObject(parameters))
      throw bad(`Invalid '${param}.function.parameters': expected a JSON schema object.`, `${param}.function.parameters`);
    toolsByName.set(name, {
      name,
      description: typeof description === 'string' ? description : '',
      parameters: parameters ?? { type: 'object', properties: {} },
    });
  });
  let toolChoice = body.tool_choice ?? (toolsByName.size > 0 ? 'auto' : 'none');
  let forcedTool;
  if (isObject(toolChoice)) {
    const name = toolChoice.function?.name;
    if (toolChoice.type !== 'function' || typeof name !== 'string')
      throw bad('Invalid \'tool_choice\': expected {"type": "function", "function": {"name": ...}}.', 'tool_choice');
    if (!toolsByName.has(name)) throw bad(`Invalid 'tool_choice': no tool named ${name} in 'tools'.`, 'tool_choice');
    forcedTool = name;
    toolChoice = 'required';
  } else if (!['auto', 'none', 'required'].includes(toolChoice)) {
    throw bad("Invalid 'tool_choice': expected 'none', 'auto', 'required' or a named function.", 'tool_choice');
  }
  if (toolChoice !== 'none' && toolsByName.size === 0) throw bad("Invalid 'tool_choice': it is only allowed when 'tools' are specified.", 'tool_choice');
  // One call per reply unless asked for more: a tiny model's second call is mostly noise.
  const parallel = body.parallel_tool_calls === true;

  // response_format
  let responseSchema;
  const format = body.response_format;
  if (format !== undefined && format !== null) {
    if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(format.type))
      throw bad("Invalid 'response_format': expected type text, json_object or json_schema.", 'response_format');
    if (format.type === 'json_object') responseSchema = ANY_JSON_OBJECT;
    if (format.type === 'json_schema') {
      if (!isObject(format.json_schema) || !isObject(format.json_schema.schema ?? {}))
        throw bad("Invalid 'response_format.json_schema': expected {name, schema}.", 'response_format.json_schema');
      responseSchema = toGrammarSchema(format.json_schema.schema ?? {});
    }
  }

  // messages
  const callNames = new Map();
  const messages = body.messages.map((message, i) => {
    const param = `messages[${i}]`;
    if (!isObject(message)) throw bad(`Invalid '${param}': expected an object.`, param);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', text: contentText(message.content, `${param}.content`) };
      case 'user':
        return { role: 'user', text: contentText(message.content, `${param}.content`) };
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        if (!Array.isArray(calls)) throw bad(`Invalid '${param}.tool_calls': expected an array.`, `${param}.tool_calls`);
        const parsedCalls = calls.map((call, j) => {
          const callParam = `${param}.tool_calls[${j}]`;
          if (!isObject(call) || typeof call.id !== 'string' || !isObject(call.function) || typeof call.function.name !== 'string')
            throw bad(`Invalid '${callParam}': expected {"id", "type": "function", "function": {"name", "arguments"}}.`, callParam);
          let args = call.function.arguments ?? '{}';
          if (typeof args === 'string') {
            try {
              args = JSON.parse(args || '{}');
            } catch {
              throw bad(`Invalid '${callParam}.function.arguments': not JSON.`, `${callParam}.function.arguments`);
            }
          }
          callNames.set(call.id, call.function.name);
          return { name: call.function.name, arguments: args };
        });
        const text = contentText(message.content, `${param}.content`, { allowNull: true });
        if (text === '' && parsedCalls.length === 0 && message.content === undefined)
          throw bad(`Invalid '${param}': an assistant message needs content or tool_calls.`, param);
        return { role: 'assistant', text, calls: parsedCalls };
      }
      case 'tool': {
        if (typeof message.tool_call_id !== 'string') throw bad(`Invalid '${param}.tool_call_id': expected a string.`, `${param}.tool_call_id`);
        const name = callNames.get(message.tool_call_id);
        if (name === undefined)
          throw bad(
            `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (no call ${message.tool_call_id}).`,
            `${param}.tool_call_id`,
          );
        return { role: 'tool', name, text: contentText(message.content, `${param}.content`) };
      }
      default:
        throw bad(`Invalid '${param}.role': ${JSON.stringify(message.role)} is not one of system, developer, user, assistant, tool.`, `${param}.role`);
    }
  });

  return {
    messages,
    tools: [...toolsByName.values()],
    toolChoice,
    forcedTool,
    parallel,
    responseSchema,
    maxTokens,
    temperature,
    topP,
    seed,
    stop,
    stream: body.stream === true,
    includeUsage: body.stream === true && body.stream_options?.include_usage === true,
  };
}

// --- JSON schema → node-llama-cpp's grammar schema ----------------------------------------------------

const ANY_JSON = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array' }, { type: 'object', additionalProperties: true }] };
const ANY_JSON_OBJECT = { type: 'object', additionalProperties: true };

/**
 * A JSON schema as node-llama-cpp's grammar takes it. Kept: type (and type lists), properties,
 * items / prefixItems / min- and maxItems, enum, const, string min- and maxLength, date formats,
 * anyOf / oneOf (as a choice), allOf of objects (merged), local $refs (inlined, 8 deep), nullable.
 * An object's properties: those in `required`, or all of them when it has no `required` (the
 * grammar writes every property it lists; optional ones are left out). Unconstrained or
 * unsupported parts (pattern, minimum, not, …) accept any JSON of the stated type.
 */
function toGrammarSchema(schema, root = schema, depth = 0) {
  if (schema === true || schema === undefined || depth > 8) return ANY_JSON;
  if (!isObject(schema)) return ANY_JSON;
  if (typeof schema.$ref === 'string') {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref);
    const target = match ? root[match[1]]?.[match[2]] : undefined;
    return target === undefined ? ANY_JSON : toGrammarSchema(target, root, depth + 1);
  }
  const wrapNullable = (converted) => (schema.nullable === true ? { oneOf: [converted, { type: 'null' }] } : converted);
  if ('const' in schema) return isPrimitive(schema.const) ? { const: schema.const } : ANY_JSON;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isPrimitive);
    return wrapNullable(values.length > 0 ? { enum: values } : ANY_JSON);
  }
  const choice = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choice) && choice.length > 0) return wrapNullable({ oneOf: choice.map((alt) => toGrammarSchema(alt, root, depth + 1)) });
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const merged = { ...schema, allOf: undefined };
    for (const part of schema.allOf) {
      const resolved = isObject(part) && typeof part.$ref === 'string' ? resolveRef(part.$ref, root) : part;
      if (!isObject(resolved)) continue;
      merged.type ??= resolved.type;
      if (isObject(resolved.properties)) merged.properties = { ...merged.properties, ...resolved.properties };
      if (Array.isArray(resolved.required)) merged.required = [...(merged.required ?? []), ...resolved.required];
    }
    return toGrammarSchema(merged, root, depth + 1);
  }
  let type = schema.type;
  if (type === undefined) type = isObject(schema.properties) ? 'object' : schema.items !== undefined ? 'array' : undefined;
  if (type === undefined) return ANY_JSON;
  if (Array.isArray(type)) {
    if (type.every((t) => ['string', 'number', 'integer', 'boolean', 'null'].includes(t))) return { type };
    return { oneOf: type.map((t) => toGrammarSchema({ ...schema, type: t }, root, depth + 1)) };
  }
  switch (type) {
    case 'string': {
      if (['date-time', 'date', 'time'].includes(schema.format)) return wrapNullable({ type: 'string', format: schema.format });
      const out = { type: 'string' };
      if (Number.isInteger(schema.minLength)) out.minLength = schema.minLength;
      if (Number.isInteger(schema.maxLength)) out.maxLength = schema.maxLength;
      else if (MAX_ARG_CHARS > 0) out.maxLength = Math.max(MAX_ARG_CHARS, out.minLength ?? 0);
      return wrapNullable(out);
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return wrapNullable({ type });
    case 'array': {
      const out = { type: 'array' };
      if (schema.items !== undefined && schema.items !== false && !Array.isArray(schema.items)) out.items = toGrammarSchema(schema.items, root, depth + 1);
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
      if (prefix) out.prefixItems = prefix.map((item) => toGrammarSchema(item, root, depth + 1));
      if (Number.isInteger(schema.minItems)) out.minItems = schema.minItems;
      if (Number.isInteger(schema.maxItems)) out.maxItems = schema.maxItems;
      if (schema.items === false && prefix) out.maxItems = prefix.length;
      return wrapNullable(out);
    }
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : undefined;
      const kept = Object.entries(properties).filter(([name]) => required === undefined || required.includes(name));
      const out = { type: 'object', properties: Object.fromEntries(kept.map(([name, value]) => [name, toGrammarSchema(value, root, depth + 1)])) };
      if (kept.length === 0 && Object.keys(properties).length === 0 && schema.additionalProperties !== undefined && schema.additionalProperties !== false)
        out.additionalProperties = schema.additionalProperties === true ? true : toGrammarSchema(schema.additionalProperties, root, depth + 1);
      return wrapNullable(out);
    }
    default:
      return ANY_JSON;
  }
}

function resolveRef(ref, root) {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  return match ? root[match[1]]?.[match[2]] : undefined;
}

function isPrimitive(value) {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

// --- grammars -----------------------------------------------------------------------------------------

const grammarCache = new Map();

/** A grammar (cached by its source), evicting the oldest past 32. */
async function cachedGrammar(key, make) {
  let grammar = grammarCache.get(key);
  if (grammar === undefined) {
    grammar = await make();
    grammarCache.set(key, grammar);
    if (grammarCache.size > 32) grammarCache.delete(grammarCache.keys().next().value);
  }
  return grammar;
}

/** `<tool_call>[ call, … ]</tool_call>`: at least one call when required, one at most unless parallel. */
function toolCallGrammar(tools, { required, parallel }) {
  const calls = tools.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: toGrammarSchema(tool.parameters) },
  }));
  const key = JSON.stringify({ calls, required, parallel });
  return cachedGrammar(key, async () => {
    const json = await llama.createGrammarForJsonSchema(calls.length === 1 ? calls[0] : { oneOf: calls });
    // node-llama-cpp's root rule ends the JSON with four newlines (its stop marker): that rule becomes
    // one call, and the root is the call list.
    const lines = json.grammar.split('\n');
    const rootAt = lines.findIndex((line) => line.startsWith('root ::= '));
    const rootBody = lines[rootAt].slice('root ::= '.length).replace(/ "\\n\\n\\n\\n" \[\\n\]\*$/, '');
    lines[rootAt] = `aicc-call ::= ${rootBody}`;
    const more = parallel ? ` ( aicc-ws "," aicc-ws aicc-call ){0,${MAX_PARALLEL_CALLS - 1}}` : '';
    const list = required ? `aicc-call${more}` : `( aicc-call${more} )?`;
    const gbnf = [`root ::= "<tool_call>[" aicc-ws ${list} aicc-ws "]</tool_call>"`, 'aicc-ws ::= [ \\n]?', ...lines].join('\n');
    return llama.createGrammar({ grammar: gbnf });
  });
}

function responseFormatGrammar(schema) {
  return cachedGrammar(JSON.stringify({ responseFormat: schema }), () => llama.createGrammarForJsonSchema(schema));
}

// --- prompts --------------------------------------------------------------------------------------------

function renderCalls(calls) {
  return `<tool_call>[\n${calls.map((call) => JSON.stringify({ name: call.name, arguments: call.arguments })).join(',\n')}\n]</tool_call>`;
}

/** The tool instructions, in the words SmolLM2's function-calling training data used. */
function toolInstructions(tools) {
  const listed = tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  return [
    'You are an expert in composing functions. You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out and refuse to answer. If the given question lacks the parameters required by the function, also point it out.',
    '',
    'You have access to the following tools:',
    `<tools>${JSON.stringify(listed)}</tools>`,
    '',
    'The output MUST strictly adhere to the following format, and NO other text MUST be included.',
    "The example format is as follows. Please make sure the parameter type is correct. If no function call is needed, please make the tool calls an empty list '[]'.",
    '<tool_call>[',
    '{"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}},',
    '... (more tool calls as required)',
    ']</tool_call>',
  ].join('\n');
}

/** node-llama-cpp chat history (system / user / model items), ending with the model's turn to answer. */
function toHistory(messages, tools) {
  const history = [];
  const push = (type, text) => {
    const last = history.at(-1);
    if (type === 'user' && last?.type === 'user') last.text += `\n\n${text}`;
    else if (type === 'model' && last?.type === 'model') last.response[0] += `\n\n${text}`;
    else if (type === 'model') history.push({ type, response: [text] });
    else history.push({ type, text });
  };
  for (const message of messages) {
    if (message.role === 'system') push('system', message.text);
    else if (message.role === 'user') push('user', message.text);
    else if (message.role === 'tool') push('user', `<tool_response>\n${JSON.stringify({ name: message.name, content: message.text })}\n</tool_response>`);
    else push('model', [message.text, message.calls.length > 0 ? renderCalls(message.calls) : ''].filter(Boolean).join('\n'));
  }
  if (tools !== undefined) {
    const instructions = toolInstructions(tools);
    if (history[0]?.type === 'system') history[0] = { type: 'system', text: `${history[0].text}\n\n${instructions}` };
    else history.unshift({ type: 'system', text: instructions });
  }
  history.push({ type: 'model', response: [] });
  return history;
}

/** The prompt's tokens as the chat wrapper renders them, and how many of them the context already holds. */
function promptTokens({ chat, sequence }, history) {
  const { contextText } = chat.chatWrapper.generateContextState({ chatHistory: history });
  const tokens = contextText.tokenize(model.tokenizer);
  const held = sequence.contextTokens;
  let cached = 0;
  while (cached < tokens.length && cached < held.length && tokens[cached] === held[cached]) cached++;
  // llama.cpp evaluates the last prompt token again to sample from it.
  return { count: tokens.length, cached: Math.min(cached, Math.max(0, tokens.length - 1)) };
}

// --- generation -----------------------------------------------------------------------------------------

/**
 * Scans the constrained tool-call text as it grows and reports each call object once complete
 * (braces balanced, outside strings), so streaming sends a call as soon as it is whole.
 */
class CallScanner {
  constructor(onCall) {
    this.onCall = onCall;
    this.text = '';
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.start = -1;
  }
  push(chunk) {
    for (const ch of chunk) {
      const at = this.text.length;
      this.text += ch;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        continue;
      }
      if (ch === '"' && this.depth > 0) this.inString = true;
      else if (ch === '{') {
        if (this.depth === 0) this.start = at;
        this.depth++;
      } else if (ch === '}') {
        this.depth--;
        if (this.depth === 0) this.onCall(JSON.parse(this.text.slice(this.start, at + 1)));
      }
    }
  }
}

const sameCall = (a, b) => a.name === b.name && JSON.stringify(a.arguments) === JSON.stringify(b.arguments);

/**
 * Answers one parsed request. `emit` gets {content} text deltas and {call} complete tool calls as they
 * come; resolves with the finish reason and usage.
 */
async function complete(request, emit, signal) {
  const room = (tokens) => contextSize - tokens;
  let completionTokens = 0;
  const countTokens = (tokens) => (completionTokens += tokens.length);
  const sampling = {
    temperature: request.temperature,
    ...(request.topP !== undefined ? { topP: request.topP } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    signal,
    stopOnAbortSignal: true,
    onToken: countTokens,
  };
  const budget = (prompt) => {
    if (prompt.count >= contextSize)
      throw bad(
        `This model's maximum context length is ${contextSize} tokens. However, your messages resulted in ${prompt.count} tokens.`,
        'messages',
        'context_length_exceeded',
      );
    return Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, room(prompt.count));
  };

  const offerTools = request.toolChoice !== 'none' && request.tools.length > 0;
  let usagePrompt;
  let hiddenTokens = 0;
  if (offerTools) {
    const tools = request.forcedTool ? request.tools.filter((tool) => tool.name === request.forcedTool) : request.tools;
    const required = request.toolChoice === 'required';
    const history = toHistory(request.messages, tools);
    const prompt = promptTokens(toolChat, history);
    usagePrompt = prompt;
    const maxTokens = budget(prompt);
    const grammar = await toolCallGrammar(tools, { required, parallel: request.parallel });
    // Calls already made since the last user message: the same one again means the model has nothing new.
    const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
    const earlier = request.messages.slice(lastUser + 1).flatMap((message) => (message.role === 'assistant' ? message.calls : []));
    const calls = [];
    const scanner = new CallScanner((call) => {
      if (calls.length === 0 && !required && earlier.some((made) => sameCall(made, call))) return;
      calls.push(call);
      emit({ call });
    });
    const result = await toolChat.chat.generateResponse(history, { ...sampling, grammar, maxTokens, onTextChunk: (text) => scanner.push(text) });
    if (DEBUG) log({ debug: 'tool pass', raw: scanner.text, stopReason: result.metadata.stopReason });
    if (calls.length > 0) return { finishReason: 'tool_calls', usage: usage(usagePrompt, completionTokens) };
    if (result.metadata.stopReason === 'maxTokens' || result.metadata.stopReason === 'abort')
      return { finishReason: 'length', usage: usage(usagePrompt, completionTokens) };
    if (required) throw new ApiError(500, 'the model produced no tool call', { type: 'server_error' });
    // No call: answer in words, as if no tools were offered, with the whole max_tokens. The tool pass's
    // tokens are reported as reasoning tokens: generated, counted, never shown.
    hiddenTokens = completionTokens;
  }

  const history = toHistory(request.messages, undefined);
  const prompt = promptTokens(textChat, history);
  usagePrompt ??= prompt;
  const maxTokens = budget(prompt);
  const grammar = request.responseSchema ? await responseFormatGrammar(request.responseSchema) : undefined;
  const result = await textChat.chat.generateResponse(history, {
    ...sampling,
    maxTokens,
    ...(grammar ? { grammar } : {}),
    ...(request.stop.length > 0 ? { customStopTriggers: request.stop } : {}),
    onTextChunk: (text) => emit({ content: text }),
  });
  if (DEBUG) log({ debug: 'text pass', raw: result.response, stopReason: result.metadata.stopReason, maxTokens });
  const finishReason = result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
  return { finishReason, usage: usage(usagePrompt, completionTokens, hiddenTokens), text: result.response };
}

function usage(prompt, completionTokens, hiddenTokens = 0) {
  return {
    prompt_tokens: prompt.count,
    completion_tokens: completionTokens,
    total_tokens: prompt.count + completionTokens,
    prompt_tokens_details: { cached_tokens: prompt.cached },
    completion_tokens_details: { reasoning_tokens: hiddenTokens },
  };
}

// --- HTTP ---------------------------------------------------------------------------------------------

let running = Promise.resolve();
let waiting = 0;

/** Runs `task` after every earlier one (one generation at a time); 429 when too many wait. */
function enqueue(task) {
  if (waiting >= QUEUE_LIMIT)
    throw new ApiError(429, `The local model is busy: ${waiting} requests are waiting (limit ${QUEUE_LIMIT}). Retry later.`, {
      type: 'requests',
      code: 'rate_limit_exceeded',
    });
  waiting++;
  const result = running.then(task);
  running = result.then(
    () => undefined,
    () => undefined,
  );
  return result.finally(() => waiting--);
}

function sendJson(res, status, body, headers = {}) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, `The request body is larger than ${MAX_BODY} bytes.`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const modelObject = () => ({ id: MODEL_ID, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'aicc-local' });

async function handleChat(req, res) {
  const raw = await readBody(req);
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    throw bad('We could not parse the JSON body of your request. (The body must be JSON.)');
  }
  const request = parseRequest(body);
  if (DEBUG)
    log({
      debug: 'request',
      stream: request.stream,
      messages: request.messages.length,
      tools: request.tools.length,
      toolChoice: request.toolChoice,
      maxTokens: request.maxTokens ?? null,
      last: request.messages.at(-1)?.text.slice(0, 200),
    });
  const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) abort.abort();
  });
  const started = performance.now();

  if (!request.stream) {
    let text = '';
    const calls = [];
    const outcome = await enqueue(() => complete(request, (event) => (event.call ? calls.push(event.call) : (text += event.content)), abort.signal));
    const message = { role: 'assistant', content: calls.length > 0 ? (text === '' ? null : text) : text, refusal: null };
    if (calls.length > 0) message.tool_calls = calls.map((call, index) => toolCallObject(id, index, call));
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: MODEL_ID,
      system_fingerprint: FINGERPRINT,
      choices: [{ index: 0, message, logprobs: null, finish_reason: outcome.finishReason }],
      usage: outcome.usage,
    });
    return { ms: Math.round(performance.now() - started), finish: outcome.finishReason, usage: outcome.usage, calls: calls.length };
  }

  // Streaming: headers go out once the request's turn comes (a 429 or 400 is still a plain JSON error).
  let callIndex = 0;
  const chunk = (choice, extra = {}) => {
    if (res.destroyed) return;
    res.write(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: MODEL_ID,
        system_fingerprint: FINGERPRINT,
        choices: choice === null ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
        ...(request.includeUsage ? { usage: null } : {}),
        ...extra,
      })}\n\n`,
    );
  };
  const outcome = await enqueue(async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    chunk({ delta: { role: 'assistant', content: '', refusal: null } });
    try {
      return await complete(
        request,
        (event) => {
          if (event.content !== undefined) {
            if (event.content !== '') chunk({ delta: { content: event.content } });
            return;
          }
          // As OpenAI streams a call: id, type and name first, then the arguments in pieces.
          const index = callIndex++;
          const call = toolCallObject(id, index, event.call);
          chunk({ delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] } });
          for (const piece of call.function.arguments.match(/[\s\S]{1,24}/g) ?? [])
            chunk({ delta: { tool_calls: [{ index, function: { arguments: piece } }] } });
        },
        abort.signal,
      );
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(500, String(error?.message ?? error), { type: 'server_error' });
      if (!res.destroyed) res.end(`data: ${JSON.stringify(apiError.body)}\n\n`);
      throw error;
    }
  });
  chunk({ delta: {}, finish_reason: outcome.finishReason });
  if (request.includeUsage) chunk(null, { usage: outcome.usage });
  if (!res.destroyed) res.end('data: [DONE]\n\n');
  return { ms: Math.round(performance.now() - started), finish: outcome.finishReason, usage: outcome.usage, calls: callIndex, stream: true };
}

function toolCallObject(id, index, call) {
  return { id: `call_${id.slice(-12)}_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) } };
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname.replace(/\/+$/, '');
  const started = performance.now();
  const done = (status, extra = {}) => log({ method: req.method, path, status, ...extra, ms: extra.ms ?? Math.round(performance.now() - started) });
  (async () => {
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: [modelObject()] });
      return done(200);
    }
    if (req.method === 'GET' && (path === `/v1/models/${MODEL_ID}` || path === `/models/${MODEL_ID}`)) {
      sendJson(res, 200, modelObject());
      return done(200);
    }
    if (req.method === 'GET' && path === '/health') {
      sendJson(res, 200, { status: 'ok', model: MODEL_ID, waiting, contextSize });
      return done(200);
    }
    // llama.cpp server's own route: the model's tokenizer on a text, no template (for token counts in benches).
    if (req.method === 'POST' && path === '/tokenize') {
      let body;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        throw bad('We could not parse the JSON body of your request. (The body must be JSON.)');
      }
      if (typeof body?.content !== 'string') throw bad('content must be a string: {"content": "text to tokenize"}.');
      sendJson(res, 200, { tokens: Array.from(model.tokenize(body.content)) });
      return done(200);
    }
    if (path === '/v1/chat/completions' || path === '/chat/completions') {
      if (req.method !== 'POST') throw new ApiError(405, `${req.method} is not allowed on ${path}; use POST.`);
      const info = await handleChat(req, res);
      return done(200, info);
    }
    throw new ApiError(404, `Unknown request URL: ${req.method} ${path}.`, { code: 'unknown_url' });
  })().catch((error) => {
    const apiError = error instanceof ApiError ? error : new ApiError(500, String(error?.message ?? error), { type: 'server_error' });
    if (!res.headersSent) sendJson(res, apiError.status, apiError.body);
    else if (!res.writableEnded) res.end();
    done(apiError.status, { error: apiError.message });
  });
});
server.keepAliveTimeout = 5000;
server.requestTimeout = 0;

await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(Number(opts.port), '127.0.0.1', resolve);
});

let stopping = false;
async function stop(reason) {
  if (stopping) return;
  stopping = true;
  log({ event: 'stopping', reason });
  const force = setTimeout(() => process.exit(0), 3000);
  force.unref();
  server.close();
  server.closeAllConnections();
  try {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  } catch {}
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
if (opts['exit-with-stdin']) {
  process.stdin.on('end', () => void stop('stdin closed'));
  process.stdin.on('error', () => void stop('stdin error'));
  process.stdin.resume();
}

const { port } = server.address();
process.stdout.write(
  `${JSON.stringify({ event: 'aicc-local-model-ready', port, model: MODEL_ID, loadMs, contextSize, threads: 1, pid: process.pid, nodeLlamaCpp: nodeLlamaCpp.getModuleVersion ? await nodeLlamaCpp.getModuleVersion() : undefined })}\n`,
);
