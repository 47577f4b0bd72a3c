// The shapes a call comes in. The canonical one is {"tool": "go", "input": {…}}; models trained on
// other tool-calling APIs write {"name", "arguments"} (arguments often a JSON string), OpenAI's
// {"type": "function", "function": {…}}, {"tool", "args"}, the input's fields beside the tool, or
// {"go": {…}}. Each is read as the call it plainly means, and named as a slip.

import type { JsonObject } from '../../protocol/messages.js';
import { parseLoose } from './looseJson.js';

export type ShapeSlip = 'array' | 'wrapper' | 'name_arguments' | 'tool_args' | 'arguments_string' | 'flat_input' | 'tool_key';

export type ShapeEntry = { call: { tool: string; input: JsonObject }; slips: ShapeSlip[] } | { problem: string };

const TOOL_KEYS = ['tool', 'name', 'tool_name'] as const;
const INPUT_KEYS = ['input', 'args', 'arguments', 'parameters', 'params'] as const;
const WRAPPER_KEYS = ['calls', 'tool_calls'] as const;

/**
 * The calls in one JSON value — a call, an array of calls, or a {"calls": […]} wrapper — each read,
 * or the problem that keeps it from being read. `slips` are those of the container.
 */
export function callsIn(value: unknown, knownTools?: ReadonlySet<string>): { entries: ShapeEntry[]; slips: ShapeSlip[] } {
  if (Array.isArray(value)) return { entries: value.map((item) => toCall(item, knownTools)), slips: ['array'] };
  const wrapper = isObject(value) ? WRAPPER_KEYS.find((key) => Array.isArray(value[key])) : undefined;
  if (wrapper !== undefined && isObject(value)) return { entries: (value[wrapper] as unknown[]).map((item) => toCall(item, knownTools)), slips: ['wrapper'] };
  return { entries: [toCall(value, knownTools)], slips: [] };
}

/** One call from one JSON value, in any of the shapes forgiven. */
function toCall(value: unknown, knownTools: ReadonlySet<string> | undefined): ShapeEntry {
  if (!isObject(value)) return { problem: 'a call is a JSON object: {"tool": "<id>", "input": {…}}' };
  const slips: ShapeSlip[] = [];
  // OpenAI's shape: {"type": "function", "function": {"name", "arguments"}}.
  const source = isObject(value['function']) ? value['function'] : value;
  const toolKey = TOOL_KEYS.find((key) => typeof source[key] === 'string' && source[key] !== '');
  if (toolKey === undefined) {
    const keys = Object.keys(source);
    const only = keys[0];
    if (keys.length === 1 && only !== undefined && knownTools?.has(only) === true && (isObject(source[only]) || source[only] === null)) {
      return { call: { tool: only, input: (source[only] as JsonObject | null) ?? {} }, slips: ['tool_key'] };
    }
    return { problem: 'no tool named; write {"tool": "<id>", "input": {…}}' };
  }
  if (toolKey !== 'tool') slips.push('name_arguments');
  const tool = source[toolKey] as string;
  const inputKey = INPUT_KEYS.find((key) => key in source);
  let input: unknown;
  if (inputKey === undefined) {
    const rest = Object.fromEntries(Object.entries(source).filter(([key]) => key !== toolKey && key !== 'type' && key !== 'id'));
    if (Object.keys(rest).length > 0) slips.push('flat_input');
    input = rest;
  } else {
    if (inputKey !== 'input' && toolKey === 'tool') slips.push('tool_args');
    input = source[inputKey];
    if (typeof input === 'string') {
      // OpenAI sends arguments as a JSON string.
      const inner = parseLoose(input.trim() === '' ? '{}' : input);
      if (!inner.ok) return { problem: `the input of ${tool} must be a JSON object` };
      input = inner.value;
      slips.push('arguments_string');
    }
    if (input === null) input = {};
  }
  if (!isObject(input)) return { problem: `the input of ${tool} must be a JSON object` };
  return { call: { tool, input }, slips };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
