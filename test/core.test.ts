// aicc-capsule/core with tool schemas precompiled by `aicc compile-schemas`: a world that carries
// no schema compiler serves calls exactly as one that compiles at run time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentClient, createCapsule, createMemoryLinkPair, ManualClock } from '../src/core.js';
import { compileToolSchemas } from '../src/node/compileSchemas.js';
import { precompiledValidators, type PrecompiledModule } from '../src/validators/precompiled.js';
import { moveTool } from './helpers.js';

describe('aicc-capsule/core with precompiled validators', () => {
  it('validates calls with the generated module and no ajv compiler', async () => {
    const tool = moveTool();
    const dir = new URL('./.tmp/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    const file = new URL(`core-${process.pid}.js`, dir);
    writeFileSync(file, compileToolSchemas([tool]));
    const module = (await import(pathToFileURL(file.pathname).href)) as PrecompiledModule;

    const clock = new ManualClock();
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, validators: precompiledValidators(module), clock, tickMode: 'event' });
    capsule.registerTool(tool);
    const [bridgeEnd, agentEnd] = createMemoryLinkPair();
    const connecting = AgentClient.connect(agentEnd, { clock });
    capsule.connect(bridgeEnd, { character: 'hero', capabilities: { actuators: ['locomotion'] } });
    const agent = await connecting;
    expect(await agent.call('move_to', { x: 1, y: 2 })).toMatchObject({ ok: true, output: { arrived: true } });
    const refused = await agent.call('move_to', { x: 1, y: 2, run: true });
    expect(refused.ok || refused.error.message).toBe('move_to: input.run is not a declared field');
    // A tool whose schema changed since compilation is caught at registration, with the fix.
    const changed = createCapsule({ world: { name: 'w', kind: 'abstract' }, validators: precompiledValidators(module), clock });
    expect(() => changed.registerTool({ ...tool, input_schema: { type: 'object' } })).toThrow(/aicc compile-schemas/);
  });
});
