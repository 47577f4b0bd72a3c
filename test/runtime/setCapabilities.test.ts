import { describe, expect, it } from 'vitest';
import { yieldToAgents } from '../../src/adapters/headless/runner.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { createCapsule, ManualClock } from '../../src/index.js';

function world() {
  const capsule = createCapsule({ world: { name: 'Keys', kind: 'abstract' }, clock: new ManualClock(), tickMode: 'event' });
  capsule.registerTool({
    id: 'unlock',
    class: 'actuator',
    description: 'Unlock the door.',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object', properties: { open: { type: 'boolean' } } },
    requires_capability: 'key',
    handler: () => ({ open: true }),
  });
  return capsule;
}

describe('capsule.setCapabilities', () => {
  it('changes what a session may call from now on, and tells its agent in a manifest_update', async () => {
    const capsule = world();
    const agent = await connectInProcess(capsule, { character: 'hero', capabilities: { actuators: ['hands'] } });
    const manifests: string[][] = [];
    agent.on('manifest', (manifest) => void manifests.push(manifest.capabilities.actuators));
    const before = await agent.call('unlock');
    expect(before.ok ? 'ok' : before.error.code).toBe('tool_unavailable');

    capsule.setCapabilities(capsule.sessions()[0]!.id, { actuators: ['hands', 'key'] });
    await yieldToAgents();
    expect(manifests).toEqual([['hands', 'key']]);
    expect(agent.manifest.capabilities.actuators).toEqual(['hands', 'key']);
    const after = await agent.call('unlock');
    expect(after.ok).toBe(true);

    // And taken away again.
    capsule.setCapabilities(capsule.sessions()[0]!.id, {});
    await yieldToAgents();
    const again = await agent.call('unlock');
    expect(again.ok ? 'ok' : again.error.code).toBe('tool_unavailable');
    capsule.dispose();
  });

  it('copies the grants, so the game’s later edits to its object change nothing', async () => {
    const capsule = world();
    const agent = await connectInProcess(capsule, { character: 'hero' });
    const given = { actuators: ['key'] };
    capsule.setCapabilities(capsule.sessions()[0]!.id, given);
    given.actuators.length = 0;
    expect((await agent.call('unlock')).ok).toBe(true);
    capsule.dispose();
  });

  it('refuses a session that is not open, saying where to find them', () => {
    const capsule = world();
    expect(() => capsule.setCapabilities('nope', {})).toThrow(/setCapabilities: no open session "nope"; capsule.sessions\(\) lists them/);
    capsule.dispose();
  });
});
