import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileSchemasCommand } from '../../src/node/cli/compileSchemasCommand.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aicc-compile-schemas-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await compileSchemasCommand(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const tools = [{ id: 'say', input_schema: { type: 'object', properties: { text: { type: 'string' } } }, output_schema: { type: 'object' } }];

describe('aicc compile-schemas', () => {
  it('prints usage for --help', async () => {
    const result = await run('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^aicc compile-schemas — .*\n\nUsage: aicc compile-schemas <tools\.json> \[-o <out\.js>\]/);
    expect(result.stdout).toMatch(/\nExit codes: 0 written, 1 .*\n.*\n$/);
    expect(result.stderr).toBe('');
  });

  it('exits 2 with one line for usage errors and a missing file', async () => {
    for (const argv of [[], ['--nope'], ['a.json', 'b.json'], ['a.json', '-o'], [join(dir, 'absent.json')]]) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(/^aicc compile-schemas: [^\n]+\n$/);
    }
  });

  it('says in words what is wrong with a file it cannot read or write, naming it and what to do (#25.11)', async () => {
    const absent = join(dir, 'absent.json');
    expect(await run(absent)).toEqual({
      code: 2,
      stdout: '',
      stderr: `aicc compile-schemas: cannot read ${absent}: there is no such file; give the path of a JSON array of tool descriptors (see --help)\n`,
    });
    expect((await run(dir)).stderr).toBe(
      `aicc compile-schemas: cannot read ${dir}: it is a folder, not a file; give the path of a JSON array of tool descriptors (see --help)\n`,
    );
    const tools = file('tools.json', '[]');
    const blocker = file('blocker', '');
    expect(await run(tools, '-o', join(blocker, 'v.js'))).toMatchObject({
      code: 1,
      stderr: `aicc compile-schemas: cannot write ${join(blocker, 'v.js')}: ${blocker} is a file, not a folder; choose another --out\n`,
    });
    expect(await run(tools, '-o', dir)).toMatchObject({
      code: 1,
      stderr: `aicc compile-schemas: cannot write ${dir}: it is a folder; give --out a file name, like ${join(dir, 'tool-validators.js')}\n`,
    });
    for (const argv of [[absent], [dir], [tools, '-o', dir]]) expect((await run(...argv)).stderr).not.toMatch(/E[A-Z]{3,}/);
  });

  it('exits 1 for invalid JSON, a bad descriptor or a schema that does not compile', async () => {
    const cases: Array<[string, string]> = [
      ['{ not json', 'is not valid JSON'],
      ['{"tools": []}', 'must be a JSON array of tool descriptors'],
      ['[{"id": "say", "output_schema": {}}]', 'tools[0] ("say").input_schema must be an object'],
      ['[{"id": "say", "input_schema": {}, "output_schema": {}, "strict_input": "yes"}]', 'strict_input must be a boolean'],
      ['[{"id": "say", "input_schema": {"minimun": 1}, "output_schema": {}}]', 'tool "say" input schema does not compile'],
      [
        '[{"id": "say", "input_schema": {}, "output_schema": {}}, {"id": "say", "input_schema": {}, "output_schema": {}}]',
        'aicc compile-schemas: tool "say" is listed twice',
      ],
    ];
    for (const [text, message] of cases) {
      const result = await run(file('tools.json', text));
      expect(result.code, text).toBe(1);
      expect(result.stderr, text).toContain(message);
      expect(result.stderr.split('\n'), text).toHaveLength(2); // one line
    }
  });

  it('writes the module and its types with -o', async () => {
    const out = join(dir, 'gen', 'tool-validators.js');
    const result = await run(file('tools.json', JSON.stringify(tools)), '-o', out);
    expect(result).toEqual({ code: 0, stdout: `wrote ${out} (1 tools)\n`, stderr: '' });
    const source = readFileSync(out, 'utf8');
    expect(source).toContain('export const validators = {');
    expect(source).toContain('"say:input": { fingerprint: ');
    expect(existsSync(join(dir, 'gen', 'tool-validators.d.ts'))).toBe(true);
  });

  it('prints the module without -o', async () => {
    const result = await run(file('tools.json', JSON.stringify(tools)));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"say:output": { fingerprint: ');
  });
});
