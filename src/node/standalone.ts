// Node-only: JSON Schemas → ajv standalone validator code, for bundles that may not `new Function`
// (CSP). Same ajv options as the run-time compiler (src/validators/ajvOptions.ts), so verdicts agree.
// ajv's standalone output still require()s its runtime helpers, which neither a browser nor an ES
// module can load. They are inlined, not imported: under plain Node an ESM default import of
// ajv's CommonJS helper is its exports object, not the function (minLength then threw), and the
// output needs no ajv installed. The output fails loudly if any require( remains.

import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';
import type { AnySchemaObject, AnyValidateFunction } from 'ajv/dist/core.js';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS, FORMATS_MODE } from '../validators/ajvOptions.js';
import { ANNOTATIONS, SCHEMA_MAPS, SUBSCHEMAS } from '../validators/schemaKeywords.js';

/**
 * An ajv that keeps the source of what it compiles. `esm: false` suits standaloneExpression;
 * `$data: true` lets bounds be `{ $data }` pointers (the shapes of src/validators/shapes.ts).
 */
export function standaloneAjv(options: { esm: boolean; removeAdditional?: boolean; $data?: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    ...AJV_OPTIONS,
    removeAdditional: options.removeAdditional ?? false,
    $data: options.$data ?? false,
    code: { source: true, esm: options.esm, lines: false },
  });
  addFormats(ajv, { mode: FORMATS_MODE });
  return ajv;
}

/**
 * One ES module exporting a validator per entry of `exports` (export name → schema reference).
 * @param schemas schemas to add, each with an `$id`
 * @param banner the first line, a `//` comment naming the generator and the source
 */
export function standaloneValidatorsSource(
  schemas: readonly object[],
  exports: Record<string, string>,
  banner: string,
  options: { schemaPaths?: boolean } = {},
): string {
  const ajv = standaloneAjv({ esm: true });
  for (const schema of schemas) ajv.addSchema(withoutAnnotations(schema) as AnySchemaObject);
  const helpers = new Set<string>();
  const body = withoutEvaluatedMarks(rewriteRequires(standaloneCode(ajv, exports), helpers).replace(/^"use strict";/, ''));
  return moduleSource(banner, helpers, options.schemaPaths === false ? withoutSchemaPaths(body) : body);
}

/**
 * Drops `schemaPath` from the error objects the validators build, for callers that never read it
 * (the errors keep instancePath, keyword, params and message). Fails loudly if one is left.
 */
export function withoutSchemaPaths(code: string): string {
  const out = code.replace(/schemaPath:"(?:[^"\\]|\\.)*",/g, '');
  if (out.includes('schemaPath')) throw new Error('standalone: a schemaPath this generator does not recognise remains');
  return out;
}

/**
 * Inlines ajv's `validateN.evaluated = {…}` marks (they serve unevaluatedProperties across $refs)
 * into the one place each is read, `const evaluatedK = validateN.evaluated`, and drops the
 * assignments. They are the module's only side effects: without them a bundler can leave out every
 * validator an app does not use. Fails loudly if a mark is read any other way.
 */
export function withoutEvaluatedMarks(code: string): string {
  const marks = new Map<string, string>();
  // A mark's value may hold one level of nested braces (`{"props":{"a":true}}`).
  let out = code.replace(/\b(validate\d+)\.evaluated = (\{(?:[^{}]|\{[^{}]*\})*\});?/g, (_match, name: string, value: string) => {
    marks.set(name, value);
    return '';
  });
  out = out.replace(/= (validate\d+)\.evaluated;/g, (match, name: string) => {
    const value = marks.get(name);
    return value === undefined ? match : `= ${value};`;
  });
  if (/\bvalidate\d+\.evaluated\b/.test(out)) throw new Error('standalone: an `evaluated` mark is used in a way this generator does not inline');
  return out;
}

/**
 * One compiled validator as a self-contained expression, `(() => {…; return validateN;})()`, so
 * the code of many ajv instances can share one module without their names clashing.
 */
export function standaloneExpression(ajv: Ajv2020, validate: AnyValidateFunction, helpers: Set<string>): string {
  const code = standaloneCode(ajv, validate);
  const head = /^"use strict";module\.exports = (\w+);module\.exports\.default = \1;/.exec(code);
  if (head === null || ajv.opts.code.esm) throw new Error('standalone: unexpected ajv output (use standaloneAjv({ esm: false }))');
  return `(() => {${rewriteRequires(code.slice(head[0].length), helpers)}return ${head[1]};})()`;
}

/** Banner, inlined helpers, body; throws if a require( is left. */
export function moduleSource(banner: string, helpers: ReadonlySet<string>, body: string): string {
  const runtime = nodeRequire();
  const inlined = [...helpers].sort().map((local) => {
    const entry = Object.entries(HELPERS).find(([, name]) => name === local);
    if (entry === undefined) throw new Error(`standalone: unknown helper ${local}`);
    const fn: unknown = (runtime(entry[0]) as { default?: unknown }).default;
    return `const ${local} = ${String(fn)};`;
  });
  const source = `${banner}\n// @ts-nocheck\n${inlined.join('\n')}\n${body}\n`;
  if (/\brequire\(/.test(source)) throw new Error('standalone: a require() remains in the generated code');
  return source;
}

/** ajv runtime helpers → the local name of their inlined copy (self-contained functions). */
const HELPERS: Record<string, string> = {
  'ajv/dist/runtime/ucs2length': 'aiccUcs2length',
  'ajv/dist/runtime/equal': 'aiccEqual',
};

/** Replaces the require() calls ajv leaves by inlined helpers or format regexes; notes helpers used. */
export function rewriteRequires(code: string, helpers: Set<string>): string {
  return code.replace(/require\("([^"]+)"\)((?:\.[A-Za-z_$][\w$]*|\["[^"\\]*"\])*)/g, (match, mod: string, chain: string) => {
    const helper = Object.hasOwn(HELPERS, mod) ? HELPERS[mod] : undefined;
    if (helper !== undefined && chain === '.default') {
      helpers.add(helper);
      return helper;
    }
    const format = /^\.fastFormats(?:\.([\w$]+)|\["([^"\\]*)"\])$/.exec(chain);
    if (mod === 'ajv-formats/dist/formats' && format !== null) return inlineFormat(format[1] ?? format[2] ?? '');
    throw new Error(`standalone: cannot rewrite ${match}`);
  });
}

/** ajv-formats "fast" formats are regexes (or `{ validate: regex }`): written out as literals. */
function inlineFormat(name: string): string {
  const table = nodeRequire()('ajv-formats/dist/formats').fastFormats as Record<string, unknown>;
  const format = Object.hasOwn(table, name) ? table[name] : undefined;
  if (format instanceof RegExp) return regexLiteral(format);
  const validate = typeof format === 'object' && format !== null ? (format as { validate?: unknown }).validate : undefined;
  if (validate instanceof RegExp) return `{validate: ${regexLiteral(validate)}}`;
  throw new Error(`standalone: format "${name}" is code, not a regex, so it has no CSP-safe form: use "pattern" instead`);
}

function regexLiteral(re: RegExp): string {
  return `/${re.source}/${re.flags}`;
}

let required: NodeJS.Require | undefined;
/** require() for reading ajv's CommonJS helpers as they are (an ESM import would wrap them). */
function nodeRequire(): NodeJS.Require {
  return (required ??= createRequire(import.meta.url));
}

/**
 * Drops keywords that never change a verdict, so the generated code embeds smaller schemas. It
 * walks schema positions only: a property *named* `description`, or a `const` value holding a
 * `title` key, is data and stays.
 */
export function withoutAnnotations(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  // Built with fromEntries, never `out[key] =`: a key "__proto__" must stay a key.
  const entries: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      entries.push([key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutAnnotations(sub)]))]);
    } else if (SUBSCHEMAS.has(key)) {
      entries.push([key, Array.isArray(value) ? value.map(withoutAnnotations) : withoutAnnotations(value)]);
    } else {
      entries.push([key, value]);
    }
  }
  return Object.fromEntries(entries);
}
