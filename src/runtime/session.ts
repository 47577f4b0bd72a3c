// One agent controlling one character: its manifest view, its outbound sequence and replay buffer,
// its event queue and delivery cadence, its heartbeat and resume window. The call pipeline lives
// in calls.ts; the capsule (capsule.ts) owns the sessions and routes tool calls to it.

import { UPKEEP, type TimerId } from './clock.js';
import { refusal, type RefusalKind } from '../protocol/refusals.js';
import { EventDelivery } from './delivery.js';
import type { QueuedEvent } from './events.js';
import { randomUuid, SequencedIds } from '../protocol/ids.js';
import { ToolUsage } from './limits.js';
import {
  PROTOCOL,
  type AgentModel,
  type AiccMessage,
  type Capabilities,
  type EventMessage,
  type Heartbeat,
  type ToolClass,
  type WireError,
} from '../protocol/messages.js';
import type { ReplayStore, SentEvent } from './replay.js';
import { ResultCache, type CallResult } from './resultCache.js';
import type { InvalidFrame, Wire } from '../protocol/wire.js';
import type { SharedEncodings } from '../protocol/codec.js';
import type { SessionHost } from './sessionHost.js';
import { SessionListener } from './sessionListener.js';
import type { OutboundBody, SessionState, SessionStats, ToolUsageSnapshot } from './sessionTypes.js';

/** The least time between two session_resume messages on a live link (each may replay a whole buffer). */
export const LIVE_RESUME_INTERVAL_MS = 1000;

export type { SessionState, SessionStats, ToolUsageSnapshot } from './sessionTypes.js';

export class Session {
  readonly id: string;
  readonly character: string;
  state: SessionState = 'open';
  capabilities: Capabilities;
  agentModel: AgentModel;
  /** The topics delivered; replaced (never changed in place) when the agent declares others. */
  subscriptions: ReadonlySet<string>;
  /** The catalog version of the last manifest this agent was sent. */
  manifestVersion = -1;

  private wire: Wire | undefined;
  private readonly ids: SequencedIds;
  private sequence = 0;
  private readonly replay: ReplayStore;
  private readonly delivery: EventDelivery;
  // Made on first use: most of a large population of sessions sits idle, and an empty Map is not free.
  private usage: Map<string, ToolUsage> | undefined;
  // Made on the first call: most of a large population of sessions sits idle.
  private results: ResultCache | undefined;
  private controllers: Set<AbortController> | undefined;
  private lastHeardAt: number;
  private lastLiveResumeAt: number | undefined;
  private graceTimer: TimerId | undefined;
  private calls = 0;
  private refusals = 0;
  private sent = 0;

  constructor(
    private readonly host: SessionHost,
    init: { id: string; character: string; capabilities: Capabilities; agentModel: AgentModel; subscriptions: ReadonlySet<string> },
  ) {
    this.id = init.id;
    this.character = init.character;
    this.capabilities = init.capabilities;
    this.agentModel = init.agentModel;
    this.subscriptions = init.subscriptions;
    this.ids = new SequencedIds(host.randomBytes);
    this.replay = host.replayStore(this.id);
    this.delivery = new EventDelivery(host, this);
    this.lastHeardAt = host.clock.now();
  }

  get stats(): SessionStats {
    return {
      decisionLatencyMs: this.delivery.decisionLatencyMs,
      calls: this.calls,
      refusals: this.refusals,
      eventsQueued: this.delivery.waiting,
      eventsDropped: this.delivery.droppedTotal,
      sent: this.sent,
    };
  }

  /** The usage counters of one tool in this session (limits survive a resume with the session). */
  usageOf(tool: string): ToolUsage {
    this.usage ??= new Map();
    let usage = this.usage.get(tool);
    if (usage === undefined) this.usage.set(tool, (usage = new ToolUsage()));
    return usage;
  }

  /**
   * This session's use of every tool it has called, for inspectors: calls that reached a handler
   * (`used`, what calls_per_session counts) and those inside the current calls_per_minute window.
   * Read-only: unlike usageOf it makes no counters.
   */
  toolUsage(now: number): ToolUsageSnapshot[] {
    return [...(this.usage ?? [])].map(([tool, usage]) => ({ tool, used: usage.used, inWindow: usage.inWindow(now) }));
  }

  holds(toolClass: ToolClass, capability: string): boolean {
    const list = toolClass === 'sensor' ? this.capabilities.sensors : toolClass === 'actuator' ? this.capabilities.actuators : this.capabilities.generators;
    return list.includes(capability);
  }

  // ── links ──────────────────────────────────────────────────────────────────────────────────

  /** Starts the session on its first link: sends session_init. */
  open(wire: Wire): void {
    this.attach(wire);
    const manifest = this.host.manifestFor(this);
    const { protocol: _p, type: _t, ...fields } = manifest;
    this.send({ type: 'session_init', ...fields });
  }

  /**
   * Takes a new link for a session_resume whose message_id names the last message the agent holds.
   * Replays what came after it, then a heartbeat that says the resume is done. False (and an error
   * on the new link) when the gap can no longer be filled.
   */
  resume(wire: Wire, lastMessageId: string): boolean {
    const known = this.ids.sequenceOf(lastMessageId);
    if (known !== undefined && known > this.sequence) {
      this.sendError(wire, refusal('replay_gap', `session_resume: message ${lastMessageId} was never sent by session ${this.id}`));
      wire.close('bad resume');
      return false;
    }
    const missed = this.replay.after(known ?? 0, (sequence, event) => this.envelope(sequence, event));
    if (missed === undefined) {
      this.sendError(wire, refusal('replay_gap', `session_resume: messages after ${lastMessageId} are no longer retained (replay buffer holds ${this.host.settings.replayBufferSize}); open a new session`));
      wire.close('replay gap');
      this.close('replay gap', { notify: false });
      return false;
    }
    if (this.wire !== undefined && this.wire !== wire) this.dropWire('superseded by a resumed link');
    this.attach(wire);
    for (const message of missed) wire.send(message);
    this.send({ type: 'heartbeat' });
    this.host.changed(this, 'resumed', `replayed ${missed.length} messages`);
    this.delivery.schedule();
    return true;
  }

  private attach(wire: Wire): void {
    this.wire = wire;
    this.state = 'open';
    this.lastHeardAt = this.host.clock.now();
    this.clearTimer('graceTimer');
    wire.listen(new SessionListener(this, wire));
    this.startHeartbeat();
  }

  /** @internal Drops the link and waits for a resume (its Wire listener calls it when the link closes). */
  detach(reason: string): void {
    if (this.state !== 'open') return;
    this.dropWire(reason);
    this.state = 'detached';
    this.graceTimer = this.host.clock.setTimeout(() => this.close('resume grace period ended', { notify: false }), this.host.settings.resumeGraceMs, UPKEEP);
    this.host.changed(this, 'detached', reason);
  }

  private dropWire(reason: string): void {
    const wire = this.wire;
    this.wire = undefined;
    this.host.heartbeats.stop(this);
    this.delivery.stop();
    wire?.close(reason);
  }

  /** Ends the session; with notify, the agent gets a session_close first. */
  close(reason: string, options: { notify: boolean } = { notify: true }): void {
    if (this.state === 'closed') return;
    if (options.notify && this.wire !== undefined) this.send({ type: 'session_close', reason });
    this.state = 'closed';
    this.dropWire(reason);
    this.clearTimer('graceTimer');
    for (const controller of this.controllers ?? []) controller.abort(new Error(`session closed: ${reason}`));
    this.controllers = undefined;
    this.host.changed(this, 'closed', reason);
  }

  // ── inbound ────────────────────────────────────────────────────────────────────────────────

  /** Whether `wire` is the session's link now (a superseded one's messages are ignored). @internal */
  linkedBy(wire: Wire): boolean {
    return this.wire === wire;
  }

  /** @internal Each message from the link. Nothing a peer sends may throw out: a failure here is ours. */
  receiveSafely(message: AiccMessage): void {
    try {
      this.receive(message);
    } catch (error) {
      this.send({ type: 'error', error: refusal('internal', `the bridge failed while handling ${message.type}`) });
      this.host.hostError({ code: 'bridge_failed', sessionId: this.id, message: `session: failed while handling ${message.type}: ${String(error)}`, cause: error });
    }
  }

  private receive(message: AiccMessage): void {
    this.lastHeardAt = this.host.clock.now();
    this.host.tap(this, 'in', message);
    if (message.session_id !== this.id) {
      this.refuse(message, 'unknown_session', `${message.type}: session ${message.session_id} is not this link's session; resume or open a new session`);
      return;
    }
    switch (message.type) {
      case 'tool_call':
        this.delivery.noteDecision();
        this.host.toolCall(this, message);
        return;
      case 'manifest_request':
        this.sendManifest();
        return;
      case 'heartbeat':
        if (message.manifest_update !== undefined) {
          this.applyAgentUpdate(message);
          this.sendManifest();
        }
        return;
      case 'session_close':
        this.close(`closed by agent${message.reason ? `: ${message.reason}` : ''}`);
        return;
      case 'session_resume': {
        // A resume on the live link: the agent thinks it missed something; replay from its mark.
        // Each replays up to replayBufferSize messages, so they are rationed.
        const now = this.host.clock.now();
        if (this.lastLiveResumeAt !== undefined && now - this.lastLiveResumeAt < LIVE_RESUME_INTERVAL_MS) {
          this.refuse(message, 'rate_limited', `session_resume on the live link: at most one each ${LIVE_RESUME_INTERVAL_MS} ms; retry in ${Math.ceil(this.lastLiveResumeAt + LIVE_RESUME_INTERVAL_MS - now)} ms`);
          return;
        }
        this.lastLiveResumeAt = now;
        if (this.wire !== undefined) this.resume(this.wire, message.message_id);
        return;
      }
      default:
        return;
    }
  }

  /** An agent may change only its own declarations: agent_model and event_subscriptions. */
  private applyAgentUpdate(heartbeat: Heartbeat): void {
    const update = heartbeat.manifest_update!;
    this.agentModel = update.agent_model;
    const before = this.subscriptions;
    this.subscriptions = new Set(update.event_subscriptions ?? []);
    this.host.subscriptionsChanged(this, before);
  }

  /** @internal The session's Wire listener hands it each frame it could not read. */
  refuseFrame(problem: InvalidFrame): void {
    this.lastHeardAt = this.host.clock.now();
    this.refuse(problem.value, problem.kind, problem.message);
  }

  /** A malformed tool_call with a usable call_id is answered as a failed call; anything else gets `error`. */
  private refuse(value: unknown, kind: RefusalKind, message: string): void {
    this.refusals++;
    const record = (value ?? {}) as Record<string, unknown>;
    const callId = record['call_id'];
    if (record['type'] === 'tool_call' && typeof callId === 'string' && callId.length > 0 && kind !== 'protocol_mismatch') {
      this.sendResult({ call_id: callId, ok: false, error: refusal(kind, message), meta: { tick: 0, latency_ms: 0, source: 'bridge' } });
      return;
    }
    this.send({ type: 'error', error: refusal(kind, message) });
  }

  // ── calls ──────────────────────────────────────────────────────────────────────────────────

  /** undefined: a new call_id (now marked running). Otherwise the call was seen: its result, or null while it runs. */
  claimCall(callId: string): CallResult | null | undefined {
    return (this.results ??= new ResultCache(this.host.settings.resultCacheSize)).claim(callId);
  }

  finishCall(result: CallResult): void {
    this.calls++;
    if (!result.ok) this.refusals++;
    this.results?.store(result);
    this.sendResult(result);
  }

  /** A result that came after its call's timeout: kept for a retry, never sent (the agent had `timeout`). */
  keepLateResult(result: CallResult): void {
    this.results?.storeLate(result);
  }

  sendResult(result: CallResult): void {
    this.send({ type: 'tool_result', ...result });
  }

  /** An AbortController tied to this session's life. */
  controller(): AbortController {
    const controller = new AbortController();
    (this.controllers ??= new Set()).add(controller);
    return controller;
  }

  release(controller: AbortController): void {
    this.controllers?.delete(controller);
  }

  // ── events ─────────────────────────────────────────────────────────────────────────────────

  enqueue(event: QueuedEvent): void {
    if (this.state !== 'closed') this.delivery.push(event);
  }

  // ── outbound ───────────────────────────────────────────────────────────────────────────────

  sendManifest(): void {
    this.send({ type: 'heartbeat', manifest_update: this.host.manifestFor(this) });
  }

  /** Sequences a message, keeps it for replay (bare heartbeats excepted) and sends it if linked. */
  send(body: OutboundBody): void {
    if (this.state === 'closed') return;
    const sequence = ++this.sequence;
    this.dispatch(sequence, { protocol: PROTOCOL, session_id: this.id, message_id: this.ids.idOf(sequence), ...body } as AiccMessage);
  }

  /** Bytes waiting unsent on the session's link; undefined while it has none (detached or closed). */
  get backlog(): number | undefined {
    return this.wire?.link.bufferedAmount;
  }

  /**
   * Sends one delivery of queued events (EventDelivery calls it at the session's cadence): on a
   * batched wire, one frame. The first carries `dropped` as meta.dropped_events when above 0.
   */
  deliver(batch: readonly QueuedEvent[], dropped: number): void {
    this.wire?.cork();
    for (let index = 0; index < batch.length; index++) {
      const event = batch[index]!;
      // Only the batch's first event ever changes (to carry the count of dropped events).
      this.sendEvent(index === 0 && dropped > 0 ? { topic: event.topic, payload: event.payload, meta: { ...event.meta, dropped_events: dropped } } : event);
    }
    this.wire?.uncork();
  }

  /**
   * send() for the commonest message, built in one fixed shape: an event delivery is the hot path.
   * `event` is shared with every session it reaches, so its payload is encoded once for them all.
   */
  private sendEvent(event: SentEvent & SharedEncodings): void {
    if (this.state === 'closed') return;
    const sequence = ++this.sequence;
    const message = this.envelope(sequence, event);
    this.replay.pushEvent(sequence, event);
    this.host.tap(this, 'out', message);
    if (this.wire !== undefined) {
      this.sent++;
      this.wire.sendEvent(message, event);
    }
  }

  /** The envelope of an event sent under `sequence`: how it went out, and how a replay rebuilds it. */
  private envelope(sequence: number, event: SentEvent): EventMessage {
    return event.meta === undefined
      ? { protocol: PROTOCOL, type: 'event', session_id: this.id, message_id: this.ids.idOf(sequence), topic: event.topic, payload: event.payload }
      : { protocol: PROTOCOL, type: 'event', session_id: this.id, message_id: this.ids.idOf(sequence), topic: event.topic, payload: event.payload, meta: event.meta };
  }

  private dispatch(sequence: number, message: AiccMessage): void {
    if (!(message.type === 'heartbeat' && message.manifest_update === undefined)) this.replay.push(sequence, message);
    this.host.tap(this, 'out', message);
    if (this.wire !== undefined) {
      this.sent++;
      this.wire.send(message);
    }
  }

  private sendError(wire: Wire, error: WireError): void {
    wire.send({ protocol: PROTOCOL, type: 'error', session_id: this.id, message_id: randomUuid(this.host.randomBytes), error });
  }

  private startHeartbeat(): void {
    this.host.heartbeats.start(this);
  }

  /** A heartbeat: sent to a live agent, or the link dropped when the agent has been silent too long. */
  beat(): void {
    if (this.wire === undefined) return this.host.heartbeats.stop(this);
    const silentFor = this.host.clock.now() - this.lastHeardAt;
    if (silentFor >= this.host.settings.deadPeerTimeoutMs) {
      this.detach(`agent silent for ${Math.round(silentFor)} ms`);
      return;
    }
    this.send({ type: 'heartbeat' });
  }

  private clearTimer(name: 'graceTimer'): void {
    const id = this[name];
    if (id !== undefined) this.host.clock.clearTimeout(id);
    this[name] = undefined;
  }
}
