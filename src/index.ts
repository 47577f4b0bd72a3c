// aicc-capsule: the whole browser-safe runtime, with ajv compiling tool schemas at run time.
// For a bundle without the compiler, import from aicc-capsule/core with precompiled validators.

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
 */
export function createCapsule(options: CapsuleOptionsWithDefaults): Capsule {
  return createCoreCapsule({ ...options, validators: options.validators ?? ajvValidators(), decisionBudgets: options.decisionBudgets ?? decisionBudgets() });
}

export {
  ManualClock,
  realClock,
  isManualClock,
  startAnimationFrameDriver,
  startIntervalDriver,
  CapsuleError,
  ToolError,
  REFUSALS,
  refusal,
  EventQueue,
  deliveryIntervalMs,
  CLASS_BUDGET_MS,
  randomUuid,
  DEFAULT_INBOUND_LIMITS,
  checkAgentMessage,
  checkBridgeMessage,
  checkMessage,
  PROTOCOL,
  TOPICS,
  MESSAGE_TYPES,
  ERROR_CODES,
  IMMEDIATE_MARK,
  NIL_UUID,
  Session,
  ReplayBuffer,
  describeAjvError,
  schemaFingerprint,
  strictSchema,
  validatorKey,
  jsonCodec,
  binaryCodec,
  objectCodec,
  createMemoryLinkPair,
  connectWebSocket,
  webSocketLink,
  tapLink,
  wrapLink,
  Wire,
  batchedFraming,
  BATCHED_SUBPROTOCOL,
  MAX_BATCH_MESSAGES,
  AgentClient,
  connectInProcess,
  Facts,
  ScriptedAgent,
  runRules,
  defineTool,
  selectTools,
  withOverrides,
} from './core.js';
export { ajvValidators } from './validators/ajv.js';
export { precompiledValidators } from './validators/precompiled.js';

export type * from './core.js';
