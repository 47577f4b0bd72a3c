// aicc-capsule: the browser-safe runtime, with ajv compiling tool schemas at run time. For a bundle
// without the compiler, import from aicc-capsule/core with precompiled validators. Its createCapsule
// compiles schemas with ajv and gives sessions decision budgets; the rest is core.ts's, chosen below.

import { createCapsule as createCoreCapsule, type Capsule } from './runtime/capsule.js';
import type { CapsuleOptions } from './runtime/options.js';
import type { ValidatorFactory } from './runtime/validator.js';
import { ajvValidators } from './validators/ajv.js';
import { decisionBudgets } from './runtime/decisionBudget.js';

export type CapsuleOptionsWithDefaults = Omit<CapsuleOptions, 'validators'> & {
  /** Default: ajvValidators(), compiling each tool schema once at registration. */
  validators?: ValidatorFactory;
};

/**
 * Creates a capsule; tool schemas are compiled by ajv unless other validators are given, and
 * sessions may declare decision budgets.
 *
 * @example
 * const capsule = createCapsule({ world: { name: 'Walled Garden', kind: '2d' }, tickMode: 'event' });
 * capsule.registerTool({ id: 'step', class: 'actuator', description: 'One step east.', input_schema: { type: 'object' },
 *   output_schema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] }, handler: () => ({ x: 1 }) });
 * const agent = await connectInProcess(capsule, { character: 'wren' });
 * await agent.call('step', {}); // { ok: true, output: { x: 1 }, meta }
 */
export function createCapsule(options: CapsuleOptionsWithDefaults): Capsule {
  return createCoreCapsule({ ...options, validators: options.validators ?? ajvValidators(), decisionBudgets: options.decisionBudgets ?? decisionBudgets() });
}

// The root's values: what a game and an agent need to start, at most 15 (the IIFE's AICC global is
// this list too, and the Phaser IIFE takes its shared runtime from it). The rest of core.ts's list —
// the binary codec, batched framing, decisionBudgets for a core capsule — is in aicc-capsule/core;
// every type of it is here.
export {
  AgentClient,
  CapsuleError,
  ToolError,
  ManualClock,
  realClock,
  connectInProcess,
  connectWebSocket,
  webSocketLink,
  createMemoryLinkPair,
  defineTool,
  jsonCodec,
  objectCodec,
  ScriptedAgent,
  startDriver,
} from './core.js';
export type * from './coreTypes.js';
