// The ajv settings shared by the run-time compiler (./ajv.ts) and the ahead-of-time generator
// (src/node/standalone.ts): one option set, so a precompiled validator and a run-time one give the
// same verdict and the same message. No Node built-ins and no ajv code here (type imports only).

import type { Options } from 'ajv';

export const AJV_OPTIONS = {
  // An unknown keyword is a host bug (a typo such as `minimun`): throw instead of ignoring it.
  strictSchema: true,
  // NaN and Infinity are not numbers (ajv's default, spelled out because verdicts depend on it).
  strictNumbers: true,
  // Tool schemas often leave out `type` beside `properties` or use union types: both are fine.
  strictTypes: false,
  strictTuples: false,
  allowUnionTypes: true,
  // Only the first error is reported (describeAjvError), so stop there.
  allErrors: false,
  logger: false,
  // compile() must not register a schema's `$id` instance-wide: two tools may reuse one `$id`.
  addUsedSchema: false,
} as const satisfies Options;

/** ajv-formats mode: every "fast" format is a regex, which the generator can inline. */
export const FORMATS_MODE = 'fast';

/** The message of AICC_SCHEMA_COMPILE, the same whichever compiler failed. */
export function schemaCompileMessage(tool: string, kind: 'input' | 'output', reason: unknown): string {
  const text = reason instanceof Error ? reason.message : String(reason);
  return `tool "${tool}" ${kind} schema does not compile: ${text.split('\n')[0]}`;
}

/** `$async` validators return a promise, which a SchemaValidator cannot. */
export const ASYNC_REASON = 'async schemas ($async) are not supported';
