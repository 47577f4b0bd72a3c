// The tool catalog as a model reads it: one line per tool — id, class, input fields with their
// types and required marks, limits, description — instead of the raw JSON Schemas, which cost many
// times the characters and say nothing more a model needs to make a valid call.

import type { Capabilities, JsonObject, ToolDescriptor } from '../../protocol/messages.js';
import { clip } from '../../base/clip.js';

/** Longest description kept on a tool's line; a longer one ends at a sentence where it can. */
const MAX_DESCRIPTION = 300;
/** Nested objects deeper than this show as `object`. */
const MAX_SCHEMA_DEPTH = 2;
/** Most enum values listed. */
const MAX_ENUM = 8;

/** Whether the session holds the capability the tool requires (the bridge checks the same). */
export function usable(tool: ToolDescriptor, capabilities: Capabilities): boolean {
  const needed = tool.requires_capability;
  if (needed === undefined) return true;
  const held = tool.class === 'sensor' ? capabilities.sensors : tool.class === 'actuator' ? capabilities.actuators : capabilities.generators;
  return held.includes(needed);
}

/** `go [actuator] {direction*: string 1..32} 30/min — Walk through one of the exits…` */
export function toolLine(tool: ToolDescriptor, options: { fields?: boolean } = {}): string {
  const limits = limitsText(tool);
  const description = shorten(tool.description.replace(/\s+/g, ' ').trim(), MAX_DESCRIPTION);
  const fields = options.fields === false ? '' : ` ${fieldsText(tool.input_schema, 0)}`;
  return `${tool.id} [${tool.class}]${fields}${limits === '' ? '' : ` ${limits}`}${description === '' ? '' : ` — ${description}`}`;
}

/** `text` within `max` characters: whole sentences when at least half survives, else clipped. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.lastIndexOf('. ', max - 1);
  return end >= max / 2 ? text.slice(0, end + 1) : clip(text, max);
}

/** `30/min, 100/session`, or '' when unlimited. */
export function limitsText(tool: ToolDescriptor): string {
  const parts: string[] = [];
  if (tool.limits?.calls_per_minute !== undefined) parts.push(`${tool.limits.calls_per_minute}/min`);
  if (tool.limits?.calls_per_session !== undefined) parts.push(`${tool.limits.calls_per_session}/session`);
  return parts.join(', ');
}

/** An object schema's fields: `{a*: string, b: integer 0..9}`; `{}` when it takes none. */
function fieldsText(schema: JsonObject, depth: number): string {
  const properties = schema['properties'];
  if (typeof properties !== 'object' || properties === null)
    return schema['type'] === 'object' || schema['type'] === undefined ? '{}' : typeText(schema, depth);
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
  const fields = Object.entries(properties as Record<string, unknown>).map(
    ([name, field]) => `${name}${required.has(name) ? '*' : ''}: ${typeText(asSchema(field), depth + 1)}`,
  );
  return `{${fields.join(', ')}}`;
}

/** One field's type in a few characters: `string 1..32`, `"a"|"b"`, `[string]`, `integer ≥0`. */
export function typeText(schema: JsonObject, depth = 0): string {
  if ('const' in schema) return JSON.stringify(schema['const']);
  const values = schema['enum'];
  if (Array.isArray(values)) {
    const shown = values.slice(0, MAX_ENUM).map((v) => JSON.stringify(v));
    return shown.join('|') + (values.length > MAX_ENUM ? '|…' : '');
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.map((option) => typeText(asSchema(option), depth)).join('|');
  }
  const type = schema['type'];
  if (Array.isArray(type)) return type.map((t) => typeText({ ...schema, type: t }, depth)).join('|');
  const withDefault = (text: string): string => ('default' in schema ? `${text} =${JSON.stringify(schema['default'])}` : text);
  switch (type) {
    case 'string': {
      const format = typeof schema['format'] === 'string' ? `(${schema['format']})` : '';
      const pattern = typeof schema['pattern'] === 'string' ? ` /${schema['pattern']}/` : '';
      return withDefault(`string${format}${range(schema['minLength'], schema['maxLength'], false)}${pattern}`);
    }
    case 'integer':
    case 'number':
      return withDefault(`${type}${numberRange(schema)}`);
    case 'boolean':
      return withDefault('boolean');
    case 'null':
      return 'null';
    case 'array': {
      const items = schema['items'];
      const inner = typeof items === 'object' && items !== null && !Array.isArray(items) ? typeText(asSchema(items), depth + 1) : 'any';
      return `[${inner}]${range(schema['minItems'], schema['maxItems'], false)}`;
    }
    case 'object':
      return depth > MAX_SCHEMA_DEPTH ? 'object' : fieldsText(schema, depth);
    default:
      return typeof schema['properties'] === 'object' ? fieldsText(schema, depth) : 'any';
  }
}

function numberRange(schema: JsonObject): string {
  const min = schema['minimum'] ?? schema['exclusiveMinimum'];
  const max = schema['maximum'] ?? schema['exclusiveMaximum'];
  const exclusive = 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema;
  if (exclusive) {
    const parts: string[] = [];
    if (typeof schema['exclusiveMinimum'] === 'number') parts.push(`>${schema['exclusiveMinimum']}`);
    else if (typeof schema['minimum'] === 'number') parts.push(`≥${schema['minimum']}`);
    if (typeof schema['exclusiveMaximum'] === 'number') parts.push(`<${schema['exclusiveMaximum']}`);
    else if (typeof schema['maximum'] === 'number') parts.push(`≤${schema['maximum']}`);
    return parts.length === 0 ? '' : ` ${parts.join(' ')}`;
  }
  return range(min, max, true);
}

/** ` 1..32`, ` ≤32`, ` ≥1` or ''. */
function range(min: unknown, max: unknown, numeric: boolean): string {
  const lo = typeof min === 'number' && (numeric || min > 0) ? min : undefined;
  const hi = typeof max === 'number' ? max : undefined;
  if (lo !== undefined && hi !== undefined) return ` ${lo}..${hi}`;
  if (hi !== undefined) return ` ≤${hi}`;
  if (lo !== undefined) return ` ≥${lo}`;
  return '';
}

function asSchema(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

/**
 * What changed between two catalogs, as notes for the model: a new or changed tool gets its new
 * line, a tool gone (or no longer usable) is named. Empty when nothing the model sees changed.
 */
export function catalogChanges(before: readonly ToolDescriptor[], after: readonly ToolDescriptor[], capabilities: Capabilities): string[] {
  const lines = (tools: readonly ToolDescriptor[]): Map<string, string> =>
    new Map(tools.filter((tool) => usable(tool, capabilities)).map((tool) => [tool.id, toolLine(tool)]));
  const old = lines(before);
  const now = lines(after);
  const notes: string[] = [];
  for (const [id, line] of now) if (old.get(id) !== line) notes.push(`${old.has(id) ? 'tool changed' : 'new tool'}: ${line}`);
  for (const id of old.keys()) if (!now.has(id)) notes.push(`tool gone: ${id}`);
  return notes;
}
