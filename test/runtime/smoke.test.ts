import { describe, expect, it } from 'vitest';
import { connectAgent, echoTool, makeCapsule, moveTool } from '../helpers.js';

describe('a capsule and an agent', () => {
  it('hands over the manifest and answers a call', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    capsule.registerTool(moveTool());
    const { agent } = await connectAgent(capsule, clock);
    expect(agent.manifest.tools.map((t) => t.id)).toEqual(['echo', 'move_to']);
    const result = await agent.call('echo', { text: 'hi' });
    expect(result).toMatchObject({ ok: true, output: { echo: { text: 'hi' } } });
    const moved = await agent.call('move_to', { x: 1, y: 2 });
    expect(moved.ok).toBe(true);
  });
});
