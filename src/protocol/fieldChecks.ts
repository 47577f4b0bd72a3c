// What one field of an aicc/0.1 message must be, checked by hand the way the schema's precompiled
// ajv validator checks it (schemas/aicc.schema.json, ajv 2020-12 + ajv-formats "fast"), and refused
// with the error ajv would report first, so describeAjvError words both the same. Each check takes
// the field's value and returns undefined when it passes. An absent field (undefined) passes: ajv
// checks a property only when it is there, and `required` has been checked before any property.
// Nothing is allocated unless a check fails.

import type { AjvErrorLike } from './ajvError.js';

/** The first error a schema finds, as ajv reports it, or undefined when there is none. */
export type SchemaError = AjvErrorLike | undefined;

/** A value that may be an object of any fields, as the checks read it. */
export type Fields = Record<string, unknown>;

/** ajv's `type: "object"`: not null, not an array. */
export function isObject(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function schemaError(instancePath: string, keyword: string, params: Record<string, unknown>, message: string): AjvErrorLike {
  return { instancePath, keyword, params, message };
}

/** `required`: the object at `path` lacks `field`. */
export function missing(path: string, field: string): AjvErrorLike {
  return schemaError(path, 'required', { missingProperty: field }, `must have required property '${field}'`);
}

/** `additionalProperties: false`: the object at `path` has `field`, which its schema does not declare. */
export function undeclared(path: string, field: string): AjvErrorLike {
  return schemaError(path, 'additionalProperties', { additionalProperty: field }, 'must NOT have additional properties');
}

/** `type`: the value at `path` is not of `type`. */
export function wrongType(path: string, type: string): AjvErrorLike {
  return schemaError(path, 'type', { type }, `must be ${type}`);
}

/** `type: "object"`. */
export function object(path: string, value: unknown): SchemaError {
  return value === undefined || isObject(value) ? undefined : wrongType(path, 'object');
}

/** `type: "string"`. */
export function string(path: string, value: unknown): SchemaError {
  return value === undefined || typeof value === 'string' ? undefined : wrongType(path, 'string');
}

/** `type: "boolean"`. */
export function boolean(path: string, value: unknown): SchemaError {
  return value === undefined || typeof value === 'boolean' ? undefined : wrongType(path, 'boolean');
}

/** `type: "string", minLength: 1` (ajv counts code points, but only the empty string has none). */
export function nonEmpty(path: string, value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return wrongType(path, 'string');
  return value.length > 0 ? undefined : schemaError(path, 'minLength', { limit: 1 }, 'must NOT have fewer than 1 characters');
}

/** `type: "integer", minimum: 0` (NaN and ±Infinity are not integers). */
export function count(path: string, value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return wrongType(path, 'integer');
  return value >= 0 ? undefined : schemaError(path, 'minimum', { comparison: '>=', limit: 0 }, 'must be >= 0');
}

/** `type: "string", enum: allowed`: the type is checked first. */
export function oneOf(path: string, value: unknown, allowed: readonly string[]): SchemaError {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return wrongType(path, 'string');
  return allowed.includes(value) ? undefined : schemaError(path, 'enum', { allowedValues: allowed }, 'must be equal to one of the allowed values');
}

/** `type: "string", format: "uuid"`. */
export function uuid(path: string, value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return wrongType(path, 'string');
  return isUuid(value) ? undefined : schemaError(path, 'format', { format: 'uuid' }, 'must match format "uuid"');
}

const TOOL_ID_PATTERN = '^[a-z][a-z0-9_]*$';

/** A tool id: `type: "string", pattern: "^[a-z][a-z0-9_]*$"`. */
export function toolId(path: string, value: unknown): SchemaError {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return wrongType(path, 'string');
  return isToolId(value) ? undefined : schemaError(path, 'pattern', { pattern: TOOL_ID_PATTERN }, `must match pattern "${TOOL_ID_PATTERN}"`);
}

/**
 * ajv-formats' uuid, `/^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i`, as a loop:
 * an optional `urn:uuid:` prefix, then 8-4-4-4-12 hex digits, any case. Under `i` without `u` a
 * regex folds ASCII letters only (no other character folds onto an ASCII one), and `$` is the end.
 * The dashes first, then runs of digits: a per-character test of "dash here?" cost a third more.
 */
export function isUuid(text: string): boolean {
  let s = 0;
  if (text.length === 45) {
    if (!isUrnUuid(text)) return false;
    s = 9;
  } else if (text.length !== 36) {
    return false;
  }
  return (
    text.charCodeAt(s + 8) === 0x2d &&
    text.charCodeAt(s + 13) === 0x2d &&
    text.charCodeAt(s + 18) === 0x2d &&
    text.charCodeAt(s + 23) === 0x2d &&
    isHexRun(text, s, s + 8) &&
    isHexRun(text, s + 9, s + 13) &&
    isHexRun(text, s + 14, s + 18) &&
    isHexRun(text, s + 19, s + 23) &&
    isHexRun(text, s + 24, s + 36)
  );
}

/** Whether a 36-character uuid-to-be ends in 12 hex digits (its prefix checked elsewhere). */
export function isHexTail(text: string): boolean {
  return isHexRun(text, 24, 36);
}

/** Whether text[from..to) are all hex digits: `0-9`, or `a-f` once bit 0x20 has lowered `A-F`. */
function isHexRun(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    // Unsigned: a code below '0' (or 'a') wraps round to a large number.
    if ((c - 0x30) >>> 0 > 9 && ((c | 0x20) - 0x61) >>> 0 > 5) return false;
  }
  return true;
}

/** `urn:uuid:` in any case. Setting bit 0x20 lowers an ASCII letter; the colons must be exact. */
function isUrnUuid(text: string): boolean {
  return (
    (text.charCodeAt(0) | 0x20) === 0x75 && // u
    (text.charCodeAt(1) | 0x20) === 0x72 && // r
    (text.charCodeAt(2) | 0x20) === 0x6e && // n
    text.charCodeAt(3) === 0x3a && // :
    (text.charCodeAt(4) | 0x20) === 0x75 && // u
    (text.charCodeAt(5) | 0x20) === 0x75 && // u
    (text.charCodeAt(6) | 0x20) === 0x69 && // i
    (text.charCodeAt(7) | 0x20) === 0x64 && // d
    text.charCodeAt(8) === 0x3a // :
  );
}

/** `^[a-z][a-z0-9_]*$`: a lowercase letter, then lowercase letters, digits and underscores. */
export function isToolId(text: string): boolean {
  if (text.length === 0) return false;
  const first = text.charCodeAt(0);
  if (first < 0x61 || first > 0x7a) return false;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f)) return false;
  }
  return true;
}
