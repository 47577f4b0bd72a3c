// The capsule: one game world. It owns the tool catalog, the clock and tick loop, the event bus and
// the sessions, and routes each tool call through the pipeline in callPipeline.ts. Its public face is capsuleTypes.ts.

import { createEmitter, type Emitter } from '../base/emitter.js';
import type { FinishedCall, HostError } from './calls.js';
import { CallPipeline, type CallHost, type TickState } from './callPipeline.js';
import type { CallResult } from './resultCache.js';
import { realClock, type Clock } from '../base/clock.js';
import { CapsuleError } from '../base/errors.js';
import { coalescingKey, type EventPayloads, type QueuedEvent } from './events.js';
import { cryptoBytes, randomUuid, type RandomBytes } from '../protocol/ids.js';
import {
  PROTOCOL,
  TOPICS,
  type Capabilities,
  type JsonObject,
  type ManifestUpdate,
  type TickMode,
  type ToolDescriptor,
  type Topic,
  type World,
} from '../protocol/messages.js';
import { ALL_TOPICS, Audience } from './audience.js';
import { ALL_TOPICS_LIST, DEFAULT_AGENT_MODEL, grants } from './sessionDefaults.js';
import { EventLog, topicBit, type LogEntry } from './eventLog.js';
import { Heartbeats } from './heartbeats.js';
import { acceptResume, type AcceptOptions } from './resumeLink.js';
import { NO_REPLAY, ReplayBuffer, type ReplayStore } from './resumeReplay.js';
import { Session } from './session.js';
import { microtaskBatch, runAround } from '../base/microtaskBatch.js';
import { HEARTBEAT_DEFAULTS, type ManifestSource, type SessionParts, type SessionReports, type SessionSettings } from './sessionParts.js';
import { TickLoop } from './tickLoop.js';
import type { SchemaLiteral } from './schemaType.js';
import type { StandardSchemaV1 } from './standardSchema.js';
import { ToolRegistry, type OutputOf, type Returnable, type ToolHandle, type ToolSpec, type TypedToolSpec } from './tool.js';
import type { Link } from '../links/link.js';
import { checkAgentMessage } from '../protocol/messageCheck.js';
import { checkOptions, isInProcessConnect, type CapsuleOptions, type ConnectOptions } from './options.js';
import { Wire } from '../protocol/wire.js';
import { directEndOf } from '../protocol/directWire.js';
import type { Capsule, CapsuleEvents, EmitOptions } from './capsuleTypes.js';
import type { BudgetedSession, BudgetHost, DecisionBudgets, DecisionLate } from './decisionBudget.js';

export type { CallEvent, Capsule, CapsuleEvents, EmitOptions, SessionChange, TappedMessage } from './capsuleTypes.js';
export { STALL_WARNING_MS } from './callPipeline.js';

export function createCapsule(options: CapsuleOptions): Capsule {
  return new CapsuleImpl(options);
}

class CapsuleImpl implements Capsule, CallHost, TickState, BudgetHost {
  readonly world: World;
  readonly tickRateHz: number;
  readonly tickMode: TickMode;
  readonly clock: Clock;
  readonly toolTimeoutMs: number;
  readonly settings: SessionSettings;
  readonly randomBytes: RandomBytes;
  readonly heartbeats: Heartbeats;
  readonly log: EventLog;
  /** Every tool_call of every session goes through it. */
  readonly calls: CallPipeline;
  tick = 0;

  private readonly bus: Emitter<CapsuleEvents> = createEmitter<CapsuleEvents>();
  private readonly registry: ToolRegistry;
  private readonly loop: TickLoop;
  private readonly live = new Map<string, Session>();
  private readonly audience = new Audience();
  private manifestUpdateQueued = false;
  private flushQueued = false;
  private lastTickAt: number;
  disposed = false;
  private readonly deferred: (task: () => void) => void;
  private readonly measureWork: ((work: () => void) => void) | undefined;
  private readonly makeReplayStore: CapsuleOptions['replayStore'];
  /** Decision budgets, when the capsule was made with them (CapsuleOptions.decisionBudgets). */
  private readonly budgets: DecisionBudgets | undefined;
  /** What every session is given (the same values for all): its parts, none of them this capsule. */
  private readonly parts: SessionParts<Session>;
  /** Where sessions report; `tapping` follows whether anyone listens for `message` (every message would pass through it). */
  private readonly reports: SessionReports<Session> & { tapping: boolean };

  constructor(options: CapsuleOptions) {
    checkOptions(options);
    this.world = { name: options.world.name, kind: options.world.kind };
    this.tickRateHz = options.tickRateHz ?? 10;
    this.tickMode = options.tickMode ?? 'fixed';
    this.clock = options.clock ?? realClock();
    this.randomBytes = options.randomBytes ?? cryptoBytes;
    this.toolTimeoutMs = options.toolTimeoutMs ?? 5000;
    this.calls = new CallPipeline(this, this, options.callQueueSize ?? 64);
    this.loop = new TickLoop(this.tickRateHz, options.maxCatchUpTicks ?? 5);
    this.settings = {
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_DEFAULTS.intervalMs,
      deadPeerTimeoutMs: options.deadPeerTimeoutMs ?? HEARTBEAT_DEFAULTS.deadPeerTimeoutMs,
      resumeGraceMs: options.resumeGraceMs ?? 30_000,
      replayBufferSize: options.replayBufferSize ?? 1024,
      eventQueueSize: options.eventQueueSize ?? 256,
      eventLogSize: options.eventLogSize ?? 4096,
      resultCacheSize: options.resultCacheSize ?? 256,
      maxBufferedBytes: options.maxBufferedBytes ?? 256 * 1024,
      tickIntervalMs: this.loop.intervalMs,
    };
    this.heartbeats = new Heartbeats(this.clock, this.settings.heartbeatIntervalMs);
    this.log = new EventLog(this.settings.eventLogSize);
    this.registry = new ToolRegistry(options.validators, () => this.catalogChanged());
    this.lastTickAt = this.clock.now();
    this.measureWork = options.measureWork;
    this.makeReplayStore = options.replayStore;
    this.budgets = options.decisionBudgets;
    this.deferred = microtaskBatch(options.measureWork);
    this.reports = {
      tapping: false,
      changed: (session, change, reason) => this.sessionChanged(session, change, reason),
      subscriptionsChanged: (session, before) => this.audience.resubscribed(session, before),
      hostError: (error) => this.hostError(error),
      tap: (session, direction, message) => this.bus.emit('message', { direction, session, message }),
    };
    const manifests: ManifestSource<Session> = { manifestFor: (session) => this.manifestFor(session) };
    this.parts = {
      runtime: { clock: this.clock, randomBytes: this.randomBytes, settings: this.settings, log: this.log, soon: this.deferred },
      calls: this.calls,
      heartbeats: this.heartbeats,
      manifests,
      reports: this.reports,
    };
  }

  // ── tools and manifests ────────────────────────────────────────────────────────────────────

  registerTool<
    const IS extends SchemaLiteral = JsonObject,
    const OS extends SchemaLiteral = JsonObject,
    IV extends StandardSchemaV1 | undefined = undefined,
    OV extends StandardSchemaV1 | undefined = undefined,
    const R extends Returnable<OutputOf<OS, OV>> = Returnable<OutputOf<OS, OV>>,
  >(definition: TypedToolSpec<IS, OS, IV, OV, R>): ToolHandle {
    this.alive('registerTool');
    return this.registry.register(definition as unknown as ToolSpec);
  }

  tool(id: string) {
    return this.registry.get(id);
  }

  tools(): readonly ToolDescriptor[] {
    return this.registry.enabledDescriptors();
  }

  private replayStore(sessionId: string): ReplayStore {
    const capacity = this.settings.replayBufferSize;
    return this.makeReplayStore === undefined ? new ReplayBuffer(capacity) : this.makeReplayStore(sessionId, capacity);
  }

  private manifestFor(session: Session): ManifestUpdate {
    session.manifestVersion = this.registry.version;
    const manifest: ManifestUpdate = {
      protocol: PROTOCOL,
      type: 'session_init',
      tick_rate_hz: this.tickRateHz,
      tick_mode: this.tickMode,
      world: this.world,
      capabilities: session.capabilities,
      tools: this.registry.enabledDescriptors(),
      agent_model: session.agentModel,
    };
    if (session.subscriptions.size > 0) manifest.event_subscriptions = session.subscriptions === ALL_TOPICS ? ALL_TOPICS_LIST : [...session.subscriptions];
    return manifest;
  }

  /** Several catalog changes in one turn reach agents as one manifest_update. */
  private catalogChanged(): void {
    if (this.manifestUpdateQueued) return;
    this.manifestUpdateQueued = true;
    queueMicrotask(() => {
      this.manifestUpdateQueued = false;
      const version = this.registry.version;
      for (const session of this.live.values()) if (session.manifestVersion < version) session.sendManifest();
    });
  }

  // ── sessions ───────────────────────────────────────────────────────────────────────────────

  connect(link: Link, options: ConnectOptions): Session {
    this.alive('connect');
    if (typeof options?.character !== 'string' || options.character.length === 0) {
      throw new CapsuleError('AICC_INVALID_OPTION', 'connect: options.character must name the character this agent controls');
    }
    const budgets = this.budgets;
    if (options.decisionBudget !== undefined && budgets === undefined) {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        "connect: options.decisionBudget needs a capsule made with decision budgets: createCapsule({ …, decisionBudgets: decisionBudgets() }) from aicc-capsule/core (the root entry's createCapsule has them)",
      );
    }
    const budget = options.decisionBudget === undefined ? undefined : budgets!.check(options.decisionBudget, (id) => this.registry.get(id) !== undefined);
    // An agent in this process (connectInProcess) cannot lose its link: no resume state, no grace period;
    // and it is this process's own AgentClient, which refuses at its side what this wire would (encodeWithin):
    // its messages are taken unchecked, as it takes the bridge's.
    const inProcess = isInProcessConnect(options);
    // First, so that a bad link option throws before any session exists. An in-process agent's own
    // direct end (connectInProcess, objectCodec) is its wire: no link, frame or envelope per event.
    const wire = (inProcess ? directEndOf(link) : undefined) ?? new Wire(link, inProcess ? 'trusted' : checkAgentMessage, options);
    // Most sessions take the default: they share one set (a session's set is replaced, never changed).
    const subscriptions = options.subscriptions === undefined ? ALL_TOPICS : new Set(options.subscriptions);
    const id = randomUuid(this.randomBytes);
    const session = new Session(this.parts, {
      id,
      character: options.character,
      capabilities: grants(options.capabilities),
      agentModel: options.agentModel ?? DEFAULT_AGENT_MODEL,
      subscriptions,
      replay: inProcess ? NO_REPLAY : this.replayStore(id),
      ...(budget !== undefined && { budget: (port: BudgetedSession) => budgets!.watch(budget, this, port) }),
    });
    this.live.set(session.id, session);
    this.audience.add(session);
    session.open(wire);
    this.bus.emit('session', { session, change: 'open', reason: 'connected' });
    return session;
  }

  accept(link: Link, options: AcceptOptions = {}): void {
    this.alive('accept');
    acceptResume(this, link, options);
  }

  private sessionChanged(session: Session, change: 'detached' | 'resumed' | 'closed', reason: string): void {
    if (change === 'closed') {
      this.live.delete(session.id);
      this.audience.remove(session);
    }
    this.bus.emit('session', { session, change, reason });
  }

  session(id: string): Session | undefined {
    return this.live.get(id);
  }

  setCapabilities(sessionId: string, capabilities: Partial<Capabilities>): void {
    this.alive('setCapabilities');
    const session = this.live.get(sessionId);
    if (session === undefined)
      throw new CapsuleError('AICC_INVALID_OPTION', `setCapabilities: no open session ${JSON.stringify(sessionId)}; capsule.sessions() lists them`);
    session.capabilities = grants(capabilities);
    // The agent learns its new grants the way it learns of new tools: a manifest_update.
    session.sendManifest();
  }

  sessions(): Session[] {
    return [...this.live.values()];
  }

  // ── calls ──────────────────────────────────────────────────────────────────────────────────

  completed(done: FinishedCall, result: CallResult, tool: ReturnType<CapsuleImpl['tool']>, source?: 'budget'): void {
    if (this.bus.all.has('call')) {
      try {
        const record = { sessionId: done.sessionId, character: done.character, tool: done.call.tool, callId: done.callId, input: done.call.input, result };
        this.bus.emit('call', source === undefined ? record : { ...record, source });
      } catch (error) {
        // The call has its one result already: a host listener's failure is the host's to hear.
        this.bus.emit('error', {
          code: 'listener_threw',
          tool: done.call.tool,
          sessionId: done.sessionId,
          message: `a call listener threw: ${String(error)}`,
          cause: error,
        });
      }
    }
    // In event mode the world advances once per successful action.
    if (this.tickMode === 'event' && result.ok && tool !== undefined && tool.descriptor.class !== 'sensor') this.runTick();
  }

  hostError(error: HostError): void {
    this.bus.emit('error', error);
  }

  decisionLate(event: DecisionLate): void {
    try {
      this.bus.emit('decision_late', event);
    } catch (error) {
      // Whatever the listener did, the budget's whenLate still applies.
      this.bus.emit('error', {
        code: 'listener_threw',
        sessionId: event.session.id,
        message: `a decision_late listener threw: ${String(error)}`,
        cause: error,
      });
    }
  }

  measure(work: () => void): void {
    if (this.measureWork === undefined) work();
    else runAround(this.measureWork, work);
  }

  // ── events ─────────────────────────────────────────────────────────────────────────────────

  emit<T extends Topic>(topic: T, payload: EventPayloads[T], options: EmitOptions = {}): void {
    this.alive('emit');
    if (!TOPICS.includes(topic)) throw new CapsuleError('AICC_INVALID_EVENT', `emit: "${String(topic)}" is not a topic; use one of ${TOPICS.join(', ')}`);
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new CapsuleError('AICC_INVALID_EVENT', `emit(${topic}): payload must be a JSON object`);
    }
    this.bus.emit(topic, payload as CapsuleEvents[T]);
    if (!this.audience.heard(topic)) return;
    // One event object for every subscriber: its coalescing key is worked out once, here.
    const key = coalescingKey({ topic, payload });
    if (options.to === undefined) {
      // Heard by everyone subscribed: kept once, in the log each session reads from its cursor.
      const entry: LogEntry =
        options.meta === undefined
          ? { topic, payload, key, bit: topicBit(topic), superseded: false }
          : { topic, payload, meta: options.meta, key, bit: topicBit(topic), superseded: false };
      this.log.append(entry);
      this.flushSoon();
      return;
    }
    const recipients = this.audience.recipients(topic, typeof options.to === 'function' ? options.to() : options.to);
    if (recipients.size === 0) return;
    // For some characters only: into each recipient's own queue (one event object for them all).
    const event: QueuedEvent = options.meta === undefined ? { topic, payload, key } : { topic, payload, meta: options.meta, key };
    for (const session of recipients) session.enqueue(event);
  }

  /** The log grew: once the current work is done, every session due gets its delivery. */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.deferred(this.flush);
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    this.log.pollReaders();
  };

  on<K extends keyof CapsuleEvents>(type: K, handler: (event: CapsuleEvents[K]) => void): () => void {
    this.bus.on(type, handler);
    this.reports.tapping = this.bus.all.has('message');
    return () => {
      this.bus.off(type, handler);
      this.reports.tapping = this.bus.all.has('message');
    };
  }

  // ── time ───────────────────────────────────────────────────────────────────────────────────

  step(dtMs: number): void {
    this.alive('step');
    if (!(dtMs >= 0) || !Number.isFinite(dtMs)) throw new CapsuleError('AICC_INVALID_OPTION', `step: expected a finite number of ms >= 0, got ${dtMs}`);
    // A clock that moves only when told moves on between the ticks; wall time moves by itself.
    const wait = (ms: number): void => this.clock.advance?.(ms);
    if (this.tickMode === 'event') return wait(dtMs);
    this.loop.advance(dtMs, wait, () => this.runTick());
  }

  trigger(): void {
    this.alive('trigger');
    this.runTick();
  }

  private runTick(): void {
    this.tick++;
    const now = this.clock.now();
    const dt = now - this.lastTickAt;
    this.lastTickAt = now;
    this.calls.runWaiting(now);
    // In event mode a tick follows every action: nothing is built for a tick nobody hears.
    if (!this.bus.all.has('tick') && !this.audience.heard('tick')) return;
    const payload = { tick: this.tick, dt_ms: this.tickMode === 'event' ? dt : this.loop.intervalMs, time_ms: now };
    try {
      this.emit('tick', payload);
    } catch (error) {
      // A host listener threw; report it rather than stop the loop.
      this.bus.emit('error', { code: 'listener_threw', message: `a tick listener threw: ${String(error)}`, cause: error });
    }
  }

  dispose(reason = 'capsule disposed'): void {
    if (this.disposed) return;
    for (const session of [...this.live.values()]) session.close(reason);
    this.calls.dispose();
    this.disposed = true;
    this.bus.emit('dispose', { reason });
  }

  private alive(method: string): void {
    if (this.disposed) throw new CapsuleError('AICC_DISPOSED', `${method}: this capsule was disposed; create a new one`);
  }
}
