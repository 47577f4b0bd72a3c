// A small headless example: one character, Wren, gathers apples in a walled garden, driven by a
// scripted agent that speaks aicc/0.1 through AgentClient over an in-memory link. Every action is
// a real tool call, checked, limited and answered by the capsule.

import { AgentClient } from '../../src/agent/agentClient.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { createCapsule, type Capsule } from '../../src/runtime/capsule.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { ValidatorFactory } from '../../src/runtime/validator.js';

export interface GardenOptions {
  validators: ValidatorFactory;
  /** Apples to gather. Default 4. */
  apples?: number;
  /** Most decisions the agent makes. Default 60. */
  maxDecisions?: number;
}

export interface GardenRun {
  story: string[];
  summary: { ticks: number; calls: Record<string, number>; refusals: Record<string, number>; gathered: number };
}

interface Point {
  x: number;
  y: number;
}

const SIZE = 6;

export async function runGarden(options: GardenOptions): Promise<GardenRun> {
  const clock = new ManualClock();
  const capsule = createCapsule({ world: { name: 'Walled Garden', kind: '2d' }, validators: options.validators, clock, tickMode: 'event' });
  const story: string[] = [];
  const wren = { x: 0, y: 0, basket: 0 };
  const apples: Point[] = [
    { x: 4, y: 1 },
    { x: 2, y: 5 },
    { x: 5, y: 4 },
    { x: 1, y: 3 },
  ].slice(0, options.apples ?? 4);

  registerGardenTools(capsule, wren, apples, story);

  const [bridgeEnd, agentEnd] = createMemoryLinkPair();
  const connecting = AgentClient.connect(agentEnd, { clock });
  capsule.connect(bridgeEnd, {
    character: 'wren',
    capabilities: { sensors: ['sight'], actuators: ['legs', 'hands'] },
    agentModel: { class: 'edge_small' },
    subscriptions: ['state_change'],
  });
  const agent = await connecting;
  story.push(`Wren wakes in the ${agent.manifest.world.name}, knowing ${agent.manifest.tools.length} tools: ${agent.manifest.tools.map((t) => t.id).join(', ')}.`);

  const calls: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  capsule.on('call', (record) => {
    calls[record.tool] = (calls[record.tool] ?? 0) + 1;
    if (!record.result.ok) refusals[record.result.error!.code] = (refusals[record.result.error!.code] ?? 0) + 1;
  });

  await gatherer(agent, options.maxDecisions ?? 60, story);
  await agent.close('basket full');
  capsule.dispose();
  return { story, summary: { ticks: capsule.tick, calls, refusals, gathered: wren.basket } };
}

function registerGardenTools(capsule: Capsule, wren: { x: number; y: number; basket: number }, apples: Point[], story: string[]): void {
  const point = { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } }, required: ['x', 'y'] };
  capsule.registerTool({
    id: 'look',
    class: 'sensor',
    description: 'Where Wren stands and where the apples are.',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object', properties: { at: point, apples: { type: 'array', items: point } }, required: ['at', 'apples'] },
    requires_capability: 'sight',
    handler: () => ({ at: { x: wren.x, y: wren.y }, apples: apples.map((a) => ({ ...a })) }),
  });
  capsule.registerTool({
    id: 'step',
    class: 'actuator',
    description: 'One step north, south, east or west. The garden wall stops you.',
    input_schema: { type: 'object', properties: { dir: { enum: ['north', 'south', 'east', 'west'] } }, required: ['dir'] },
    output_schema: { type: 'object', properties: { at: point }, required: ['at'] },
    requires_capability: 'legs',
    strict_input: true,
    limits: { calls_per_minute: 600 },
    handler: (input: { dir: 'north' | 'south' | 'east' | 'west' }, context) => {
      const [dx, dy] = { north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0] }[input.dir] as [number, number];
      const x = wren.x + dx;
      const y = wren.y + dy;
      if (x < 0 || y < 0 || x >= SIZE || y >= SIZE) throw new Error(`the wall blocks the way ${input.dir}`);
      wren.x = x;
      wren.y = y;
      context.emit('state_change', { entity: 'wren', field: 'position', value: { x, y } });
      return { at: { x, y } };
    },
  });
  capsule.registerTool({
    id: 'pick',
    class: 'actuator',
    description: 'Picks the apple under Wren, if there is one.',
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object', properties: { basket: { type: 'integer' } }, required: ['basket'] },
    requires_capability: 'hands',
    handler: () => {
      const index = apples.findIndex((a) => a.x === wren.x && a.y === wren.y);
      if (index < 0) throw new Error('there is no apple here');
      apples.splice(index, 1);
      wren.basket++;
      story.push(`Wren picks an apple at (${wren.x}, ${wren.y}); the basket holds ${wren.basket}.`);
      return { basket: wren.basket };
    },
  });
}

/** The scripted agent: look, walk to the nearest apple one step at a time, pick it, repeat. */
async function gatherer(agent: AgentClient, maxDecisions: number, story: string[]): Promise<void> {
  // One deliberate mistake first, to show a refusal coming back as data.
  const wrong = await agent.call('step', { dir: 'up' });
  if (!wrong.ok) story.push(`Wren tries to step "up" and is told: ${wrong.error.message}.`);
  for (let decision = 0; decision < maxDecisions; decision++) {
    const seen = await agent.call<{ at: Point; apples: Point[] }>('look');
    if (!seen.ok) return;
    const { at, apples } = seen.output;
    if (apples.length === 0) {
      story.push('No apples are left; Wren heads home.');
      return;
    }
    const target = apples.reduce((best, a) => (distance(at, a) < distance(at, best) ? a : best));
    if (distance(at, target) === 0) {
      await agent.call('pick');
      continue;
    }
    const dir = at.x < target.x ? 'east' : at.x > target.x ? 'west' : at.y < target.y ? 'south' : 'north';
    const moved = await agent.call('step', { dir });
    if (!moved.ok) story.push(`Wren cannot go ${dir}: ${moved.error.message}.`);
  }
}

function distance(a: Point, b: Point): number {
  return Math.abs(a.x - b.x) + Math.abs(a.y - b.y);
}
