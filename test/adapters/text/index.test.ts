// The adapter as a package part: its two entries, its browser safety (imports), and its schemas on the
// CSP-safe path, precompiled by `aicc compile-schemas` instead of compiled by ajv at run time.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as text from '../../../src/adapters/text/index.js';
import * as textTools from '../../../src/adapters/text/toolsEntry.js';
import { compileToolSchemas } from '../../../src/node/compileSchemas.js';
import { precompiledValidators, type PrecompiledModule } from '../../../src/validators/precompiled.js';
import { makeCapsule } from '../../helpers.js';
import { millWorld, play } from './fixture.js';

const SOURCE = new URL('../../../src/adapters/text/', import.meta.url);

describe('src/adapters/text', () => {
  it('exports a short list by name: the world, its binding and its tool set; the factories one by one from text/tools', () => {
    expect(Object.keys(text).sort()).toEqual(['TEXT_TOOL_NAMES', 'TextWorld', 'bindTextWorld', 'textTools']);
    expect(text.TEXT_TOOL_NAMES).toEqual(['look', 'inspect', 'who', 'go', 'take', 'drop', 'give', 'say', 'compose']);
    expect(Object.keys(textTools).sort()).toEqual([
      'MAX_REMARK_LENGTH',
      'MAX_SAY_LENGTH',
      'THUD_VOLUME',
      'VOICES_VOLUME',
      'composeTool',
      'dropTool',
      'giveTool',
      'goTool',
      'inspectTool',
      'lookTool',
      'sayTool',
      'takeTool',
      'whoTool',
      'worldEvents',
    ]);
  });

  it("runs in a browser: imports only its own modules, the adapters' shared helpers and the layers below (base, links, protocol, runtime), and no Node built-in", () => {
    const files = readdirSync(SOURCE).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = readFileSync(new URL(file, SOURCE), 'utf8');
      for (const [, specifier] of source.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(
          /^(\.\/[a-zA-Z]+|\.\.\/shared\/[a-zA-Z]+|\.\.\/\.\.\/(base|links|protocol|runtime)\/[a-zA-Z/]+)\.js$/,
        );
      }
      expect(source, file).not.toMatch(/\b(document|window|process|require|Buffer)\b[.(]/);
    }
  });

  it('has schemas that precompile for pages that forbid run-time compilation', async () => {
    const world = millWorld();
    const tools = text.textTools(world);
    const dir = new URL('./.tmp/', import.meta.url);
    const file = new URL(`validators-${process.pid}.js`, dir);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(file, compileToolSchemas(tools));
      const module = (await import(pathToFileURL(file.pathname).href)) as PrecompiledModule;
      const { capsule, clock } = makeCapsule({ validators: precompiledValidators(module) });
      for (const tool of tools) capsule.registerTool(tool);
      const { agent } = await play(capsule, clock, 'wren');
      expect(await agent.call('go', { direction: 'north' })).toMatchObject({ ok: true, output: { to: { id: 'meadow' } } });
      expect(await agent.call('go', {})).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'go: input.direction is required' } });
      expect(await agent.call('look', { x: 1 })).toMatchObject({ ok: false, error: { message: 'look: input.x is not a declared field' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
