// The options of a capsule and of its sessions: what each means, its default, and the checks that
// turn a bad option into a CapsuleError at once.

import { CapsuleError } from '../base/errors.js';
import type { AgentModel, Capabilities, TickMode, World } from '../protocol/messages.js';
import type { Clock } from '../base/clock.js';
import type { RandomBytes } from '../protocol/ids.js';
import type { ValidatorFactory } from './validator.js';
import type { ReplayStore } from './resumeReplay.js';
import type { WireOptions } from '../protocol/wire.js';
import type { DecisionBudget, DecisionBudgets } from './decisionBudget.js';

export interface CapsuleOptions {
  world: World;
  /** Compiles tool schemas: `ajvValidators()` or `precompiledValidators(…)`. */
  validators: ValidatorFactory;
  /**
   * Lets sessions declare decision budgets (ConnectOptions.decisionBudget): `decisionBudgets()`.
   * Default: none in aicc-capsule/core (a budget is then refused at connect); the root entry's
   * createCapsule includes them.
   */
  decisionBudgets?: DecisionBudgets;
  /** Nominal tick rate. Default 10. */
  tickRateHz?: number;
  /**
   * Default 'fixed'. In 'fixed' and 'hybrid' calls wait for a tick, and ticks come from
   * `capsule.step(deltaMs)` or a clock driver (drivers.ts); calls that wait 2 s with no tick make
   * the host hear `clock_stalled`, once.
   */
  tickMode?: TickMode;
  /** Default: wall time. Tests pass a ManualClock and drive it with `step`. */
  clock?: Clock;
  /** Source of the bytes in session and message ids. Default: crypto; a seeded one makes runs reproducible. */
  randomBytes?: RandomBytes;
  /** Default time a handler may take. Default 5,000 ms. */
  toolTimeoutMs?: number;
  /** Default 5,000 ms. */
  heartbeatIntervalMs?: number;
  /** An agent silent this long is treated as gone and its link dropped. Default 15,000 ms. */
  deadPeerTimeoutMs?: number;
  /** How long a dropped session waits for session_resume. Default 30,000 ms. */
  resumeGraceMs?: number;
  /** Messages kept per session for replay on resume. Default 1,024. */
  replayBufferSize?: number;
  /**
   * Makes each session's replay store. Default: a ReplayBuffer of replayBufferSize in memory. A host
   * may keep resume state elsewhere; the store must keep ReplayStore's promise.
   */
  replayStore?: (sessionId: string, capacity: number) => ReplayStore;
  /** Events waiting per session before the oldest droppable one goes. Default 256. */
  eventQueueSize?: number;
  /**
   * Broadcast events kept capsule-wide for the sessions that have not taken them yet (each kept
   * once, however many sessions hear it). A session still behind when the log is full takes its
   * part into its own queue (bounded by eventQueueSize). Default 4,096.
   */
  eventLogSize?: number;
  /** Results of finished calls kept per session to answer a repeated call_id. Default 256. */
  resultCacheSize?: number;
  /** Calls waiting per session for the next tick (fixed and hybrid modes). Default 64. */
  callQueueSize?: number;
  /** Deliveries pause while a link holds more than this unsent. Default 262,144 bytes. */
  maxBufferedBytes?: number;
  /** Most ticks one `step` may run before it skips the rest. Default 5. */
  maxCatchUpTicks?: number;
  /**
   * Runs the capsule's deferred work — event deliveries, made in a microtask after the step, emit or
   * call that caused them, and the results of tool handlers that answered with a promise, made when
   * it settles — for a host that times the capsule's share of a frame. It should call `work` once,
   * synchronously; if it throws or does not, the work runs right after it. Default: none.
   */
  measureWork?: (work: () => void) => void;
}

/**
 * Marks a connect from `connectInProcess`: the agent is in this process, on a memory link that cannot
 * drop, so its session keeps no resume state and ends when the link closes. A symbol, untyped on
 * ConnectOptions: a game gets it by how it connects, never by a flag it must know about.
 * `Symbol.for`: the ESM and CommonJS builds of this package agree on it.
 */
export const IN_PROCESS_SESSION: unique symbol = Symbol.for('aicc-capsule.in-process-session');

/** Whether `options` came from connectInProcess (IN_PROCESS_SESSION). */
export function isInProcessConnect(options: ConnectOptions): boolean {
  return (options as unknown as Record<symbol, unknown>)[IN_PROCESS_SESSION] === true;
}

export interface ConnectOptions extends WireOptions {
  /** The character this agent controls. */
  character: string;
  /** Capabilities granted to the agent. Default: none (only tools without requires_capability). */
  capabilities?: Partial<Capabilities>;
  /** What the agent declared about its model. Default `{ class: 'cloud_medium' }`. */
  agentModel?: AgentModel;
  /** Topics delivered to the agent. Default: all five reserved topics. */
  subscriptions?: readonly string[];
  /**
   * How long the agent has for each decision (news delivered → its next tool_call, on the capsule's
   * clock), and what the character does once that passes with no action: `'hold'` (nothing),
   * `'stop'` (the host hears `decision_late` and stops the character), or a default action
   * `{ tool, input? }` run for the character through the call pipeline. Checked at connect
   * (checkDecisionBudget, decisionBudget.ts); `tokens` is reserved. Default: none — no budget,
   * decisions are not judged. docs/PROTOCOL.md, "Decision budgets".
   */
  decisionBudget?: DecisionBudget;
}

export function checkOptions(options: CapsuleOptions): void {
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `createCapsule: ${what}`);
  };
  if (options === null || typeof options !== 'object') fail('expected an options object');
  const world = options.world;
  if (typeof world?.name !== 'string' || world.name.length === 0) fail('world.name must be a non-empty string');
  if (!['2d', '3d', 'text', 'abstract'].includes(world.kind)) fail(`world.kind must be one of 2d, 3d, text, abstract, got ${JSON.stringify(world.kind)}`);
  if (typeof options.validators?.compile !== 'function') fail('validators is required: pass ajvValidators() or precompiledValidators(…)');
  const rate = options.tickRateHz;
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) fail(`tickRateHz must be a number > 0, got ${rate}`);
  const mode = options.tickMode;
  if (mode !== undefined && !['fixed', 'event', 'hybrid'].includes(mode)) fail(`tickMode must be fixed, event or hybrid, got ${JSON.stringify(mode)}`);
  if (options.measureWork !== undefined && typeof options.measureWork !== 'function') fail('measureWork must be a function (work) => void');
  if (options.replayStore !== undefined && typeof options.replayStore !== 'function')
    fail('replayStore must be a function (sessionId, capacity) => ReplayStore');
  for (const key of [
    'toolTimeoutMs',
    'heartbeatIntervalMs',
    'deadPeerTimeoutMs',
    'resumeGraceMs',
    'replayBufferSize',
    'eventQueueSize',
    'eventLogSize',
    'resultCacheSize',
    'callQueueSize',
    'maxBufferedBytes',
    'maxCatchUpTicks',
  ] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) fail(`${key} must be a number > 0, got ${value}`);
  }
}
