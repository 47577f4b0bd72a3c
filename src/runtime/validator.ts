// One small interface between the capsule and whatever checks JSON Schemas: ajv compiling at run
// time (aicc-capsule/ajv) or validators generated ahead of time (aicc-capsule/precompiled).

import type { JsonObject } from '../protocol/messages.js';

/** A check's verdict; `value`, where given, is what the handler gets instead of the data checked (a Standard Schema validator's output). */
export type Validation = { ok: true; value?: unknown } | { ok: false; message: string };

/** Checks one value against one schema. May remove undeclared fields (see ValidatorPurpose). */
export type SchemaValidator = (data: unknown) => Validation;

export interface ValidatorPurpose {
  tool: string;
  kind: 'input' | 'output';
  /**
   * true: input fields the schema does not declare are rejected. false: they are ignored — left
   * alone where the schema allows them, removed where it says `additionalProperties: false`.
   */
  strict: boolean;
}

export interface ValidatorFactory {
  /** Compiles once; throws a CapsuleError (AICC_SCHEMA_COMPILE) naming the tool if it cannot. */
  compile(schema: JsonObject, purpose: ValidatorPurpose): SchemaValidator;
}

/**
 * The schema as strict_input checks it: every object schema that says nothing about undeclared
 * properties gets `unevaluatedProperties: false`, at the top and down through properties and items.
 */
export function strictSchema(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  const isObjectSchema = out['type'] === 'object' || isPlainObject(out['properties']);
  if (isObjectSchema && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) {
    out['unevaluatedProperties'] = false;
  }
  const properties = out['properties'];
  if (isPlainObject(properties)) {
    const next: JsonObject = {};
    for (const [key, sub] of Object.entries(properties)) next[key] = isPlainObject(sub) ? strictSchema(sub) : sub;
    out['properties'] = next;
  }
  const items = out['items'];
  if (isPlainObject(items)) out['items'] = strictSchema(items);
  return out;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key-order-independent fingerprint of a schema, to tell a precompiled validator is current. */
export function schemaFingerprint(schema: unknown): string {
  const text = stableStringify(schema);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0') + text.length.toString(16);
}

export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as JsonObject)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The key a precompiled validator is stored under. */
export function validatorKey(purpose: Pick<ValidatorPurpose, 'tool' | 'kind'>): string {
  return `${purpose.tool}:${purpose.kind}`;
}
