// `aicc compile-schemas FILE [--out FILE]`: reads tool descriptors (a JSON array), writes the ES
// module of standalone validators compileToolSchemas makes, and its declaration beside it.

import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { JsonObject } from '../../protocol/messages.js';
import { compileToolSchemas, DECLARATION, type ToolSchemas } from '../compileSchemas.js';
import { readArgs } from './args.js';
import { userMessage } from './userMessage.js';

const USAGE = `aicc compile-schemas — precompile tool schemas into CSP-safe validators

Usage: aicc compile-schemas <tools.json> [-o <out.js>]

Generates CSP-safe validators for each tool's input and output schema (input strict or lenient
per strict_input) as one ES module; pass it to precompiledValidators():
  import { precompiledValidators } from 'aicc-capsule/precompiled';
  import * as schemas from './tool-validators.js';
  precompiledValidators(schemas)
Re-run it whenever a tool schema changes: a stale validator is refused when the tool is registered.

  <tools.json>     a JSON array of tool descriptors: { id, input_schema, output_schema, strict_input? }
  -o, --out FILE   write the module to FILE (and its types to FILE's .d.ts); default: stdout
  -h, --help       print this help

Exit codes: 0 written, 1 a bad descriptor or a schema that does not compile, 2 bad usage or an
unreadable file.
`;

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** `aicc compile-schemas`: 0 done, 1 bad input or schema, 2 usage error or unreadable file. */
export async function compileSchemasCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const fail = (code: number, message: string): number => {
    io.stderr.write(`aicc compile-schemas: ${message}\n`);
    return code;
  };
  const read = readArgs(argv, {
    options: { out: { type: 'string', short: 'o', expects: 'a file name' }, help: { type: 'boolean', short: 'h' } },
    positionals: true,
  });
  if (typeof read === 'string') return fail(2, `${read} (see --help)`);
  if (read.values.help === true) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [input, extra] = read.positionals;
  const { out } = read.values;
  if (extra !== undefined) return fail(2, `one tools file expected, got also ${extra} (see --help)`);
  if (input === undefined) return fail(2, 'missing <tools.json> (see --help)');

  let text: string;
  try {
    text = await readFile(input, 'utf8');
  } catch (err) {
    return fail(2, `cannot read ${input}: ${fileProblem(err, input, 'read')}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return fail(1, `${input} is not valid JSON: ${(err as Error).message}`);
  }
  const tools = toolDescriptors(parsed);
  if (typeof tools === 'string') return fail(1, `${input}: ${tools}`);
  let source: string;
  try {
    source = compileToolSchemas(tools);
  } catch (err) {
    return fail(1, userMessage(err).split('\n')[0]!);
  }
  if (out === undefined) {
    io.stdout.write(source);
    return 0;
  }
  try {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, source);
    const types = out.replace(/\.(m?)js$/, '.d.$1ts');
    if (types !== out) await writeFile(types, DECLARATION);
  } catch (err) {
    return fail(1, `cannot write ${out}: ${fileProblem(err, out, 'write')}`);
  }
  io.stdout.write(`wrote ${out} (${tools.length} tools)\n`);
  return 0;
}

/** What a failed read or write of `path` means, in words (never a bare ENOENT), and what to do. */
function fileProblem(error: unknown, path: string, access: 'read' | 'write'): string {
  const todo = access === 'read' ? 'give the path of a JSON array of tool descriptors (see --help)' : 'choose another --out';
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return access === 'read' ? `there is no such file; ${todo}` : `its folder cannot be made; ${todo}`;
    case 'EISDIR':
      return access === 'read' ? `it is a folder, not a file; ${todo}` : `it is a folder; give --out a file name, like ${join(path, 'tool-validators.js')}`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `${fileOnTheWay(path) ?? 'a part of the path'} is a file, not a folder; ${todo}`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to ${access} it; ${todo}`;
    case 'EROFS':
      return `the file system is read-only; ${todo}`;
    case 'ENOSPC':
      return 'the disk is full; free some space and run it again';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** The nearest existing folder on `path`'s way, when it is a file instead. */
function fileOnTheWay(path: string): string | undefined {
  for (let folder = dirname(path); folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(folder)) return statSync(folder).isDirectory() ? undefined : folder;
  }
  return undefined;
}

/** The descriptors, or what is wrong with them (one line). */
function toolDescriptors(value: unknown): ToolSchemas[] | string {
  if (!Array.isArray(value)) return 'must be a JSON array of tool descriptors';
  const tools: ToolSchemas[] = [];
  for (const [i, entry] of value.entries()) {
    const at = `tools[${i}]`;
    if (!isObject(entry)) return `${at} must be an object`;
    const { id, input_schema, output_schema, strict_input } = entry;
    if (typeof id !== 'string' || id === '') return `${at}.id must be a non-empty string`;
    if (!isObject(input_schema)) return `${at} ("${id}").input_schema must be an object`;
    if (!isObject(output_schema)) return `${at} ("${id}").output_schema must be an object`;
    if (strict_input !== undefined && typeof strict_input !== 'boolean') return `${at} ("${id}").strict_input must be a boolean`;
    tools.push(strict_input === undefined ? { id, input_schema, output_schema } : { id, input_schema, output_schema, strict_input });
  }
  return tools;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
