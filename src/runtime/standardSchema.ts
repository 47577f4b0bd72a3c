// Standard Schema validators (zod 4, valibot, ArkType… — standardschema.dev) as a tool's checks: the
// validator checks, and its output (defaults filled, unknown keys stripped as it says) is what the
// handler gets; the JSON Schema still goes to agents in the manifest, given or taken from the
// validator's own converter (Standard JSON Schema: zod 4 has one). The spec's interfaces are copied
// here, as its authors ask, rather than imported.

import { CapsuleError } from '../base/errors.js';
import type { JsonObject } from '../protocol/messages.js';
import type { SchemaValidator, Validation } from './validator.js';

/** The Standard Schema v1 interface (with the optional Standard JSON Schema converter). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?:
      | {
          readonly input: (options: { readonly target: string }) => Record<string, unknown>;
          readonly output: (options: { readonly target: string }) => Record<string, unknown>;
        }
      | undefined;
  };
}

export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The value a validator gives on (its output type), and the value it takes (its input type). */
export type StandardOutput<V> = V extends StandardSchemaV1<unknown, infer O> ? O : never;
export type StandardInput<V> = V extends StandardSchemaV1<infer I, unknown> ? I : never;

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null | undefined)?.['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/**
 * The check a validator makes, as the capsule runs it: synchronously. A validator that answers with a
 * promise (zod's async refinements) throws, naming the tool: the capsule checks a call before it runs it.
 */
export function standardValidator(validator: StandardSchemaV1, tool: string, kind: 'input' | 'output'): SchemaValidator {
  return (data: unknown): Validation => {
    const result = validator['~standard'].validate(data);
    if (typeof (result as { then?: unknown }).then === 'function') {
      throw new CapsuleError(
        'AICC_INVALID_TOOL',
        `tool "${tool}": its ${kind}_validator answered asynchronously; the capsule checks calls synchronously: use a validator without async refinements, and do the async checks in the handler`,
      );
    }
    const { issues } = result as StandardResult<unknown>;
    if (issues === undefined) return { ok: true, value: (result as { value: unknown }).value };
    return {
      ok: false,
      message: issues
        .slice(0, 3)
        .map((issue) => describeIssue(kind, issue))
        .join('; '),
    };
  };
}

/**
 * The JSON Schema a validator converts itself to (Standard JSON Schema, draft 2020-12), or undefined
 * when it has no converter (valibot: give `input_schema` too, from @valibot/to-json-schema).
 */
export function jsonSchemaOf(validator: StandardSchemaV1, kind: 'input' | 'output'): JsonObject | undefined {
  const converter = validator['~standard'].jsonSchema;
  if (converter === undefined) return undefined;
  const { $schema: _dialect, ...schema } = converter[kind]({ target: 'draft-2020-12' });
  return schema as JsonObject;
}

/** `input.hand: Invalid option…`, as the JSON Schema checks name the field. */
function describeIssue(kind: 'input' | 'output', issue: StandardIssue): string {
  const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment));
  return `${[kind, ...path].join('.')}: ${issue.message}`;
}
