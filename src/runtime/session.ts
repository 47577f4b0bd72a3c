// One agent controlling one character: its manifest view, its outbound sequence and replay buffer,
// its event queue and delivery cadence, its heartbeat and resume window. It is made of parts it is
// given (sessionParts.ts: the call pipeline, the event log, heartbeats, the manifest source, the sink
// it reports to) and parts of its own (Outbox, EventDelivery, SessionCalls, a decision budget's
// watch), each reaching it back through a port of its own, never through the session itself. It
// listens to its link's Wire directly (WireHandlers), ignoring a superseded link.

import { UPKEEP, type TimerId } from '../base/clock.js';
import { refusal, type RefusalKind } from '../protocol/refusals.js';
import { EventDelivery } from './delivery.js';
import { Liveness } from './heartbeats.js';
import { randomUuid } from '../protocol/ids.js';
import { PROTOCOL, type AgentModel, type AiccMessage, type Capabilities, type Heartbeat, type WireError } from '../protocol/messages.js';
import { topicMask } from './eventLog.js';
import { Outbox } from './outbox.js';
import { SessionCalls } from './sessionCalls.js';
import type { QueuedEvent } from './events.js';
import type { FrameCall } from '../protocol/inbound.js';
import type { InvalidFrame, WireHandlers } from '../protocol/wire.js';
import type { MessageWire } from '../protocol/directWire.js';
import type { SessionParts } from './sessionParts.js';
import type { DecisionCounts, OutboundBody, SessionState, SessionStats, ToolUsageSnapshot } from './sessionTypes.js';
import type { BudgetedSession, DecisionBudgetWatch } from './decisionBudget.js';
import type { ReplayStore } from './resumeReplay.js';

/** The least time between two session_resume messages on a live link (each may replay a whole buffer). */
export const LIVE_RESUME_INTERVAL_MS = 1000;

export type { SessionState, SessionStats, ToolUsageSnapshot } from './sessionTypes.js';

/** What a session starts with: who it is, its grants and declarations, its resume store, and its decision budget's watch if it has one. */
export interface SessionInit {
  id: string;
  character: string;
  capabilities: Capabilities;
  agentModel: AgentModel;
  subscriptions: ReadonlySet<string>;
  /**
   * Keeps what the session sends, for a resume (CapsuleOptions.replayStore, or a ReplayBuffer). NO_REPLAY
   * for an agent in this process (connectInProcess): its link cannot drop, so the session keeps no
   * resume state and ends when its link closes, with no grace period.
   */
  replay: ReplayStore;
  /** Makes the session's decision budget watch, given the session's port for it (ConnectOptions.decisionBudget). */
  budget?: (session: BudgetedSession) => DecisionBudgetWatch;
}

export class Session implements WireHandlers<MessageWire> {
  readonly id: string;
  readonly character: string;
  state: SessionState = 'open';
  capabilities: Capabilities;
  agentModel: AgentModel;
  /** The topics delivered; replaced (never changed in place) when the agent declares others. */
  subscriptions: ReadonlySet<string>;
  /** The same, as a mask of topic bits (eventLog.ts): what the session reads from the capsule's log. */
  topicMask: number;
  /** The catalog version of the last manifest this agent was sent. */
  manifestVersion = -1;

  private readonly outbox: Outbox<Session>;
  /** The session's events: what it reads from the capsule's log (its cursor), its own queue, and when they go out. */
  private readonly delivery: EventDelivery;
  // Made on the first call: most of a large population of sessions sits idle.
  private ledger: SessionCalls | undefined;
  private readonly liveness: Liveness;
  private lastLiveResumeAt: number | undefined;
  private graceTimer: TimerId | undefined;
  /** Frames refused before they reached the call pipeline. */
  private refusals = 0;
  /** The session's decision budget (ConnectOptions.decisionBudget), if it has one. */
  private readonly budget: DecisionBudgetWatch | undefined;

  constructor(
    private readonly parts: SessionParts<Session>,
    init: SessionInit,
  ) {
    const { runtime } = parts;
    this.id = init.id;
    this.character = init.character;
    this.capabilities = init.capabilities;
    this.agentModel = init.agentModel;
    this.subscriptions = init.subscriptions;
    this.topicMask = topicMask(init.subscriptions);
    this.outbox = new Outbox(runtime.randomBytes, init.replay, parts.reports, this);
    this.delivery = new EventDelivery(runtime, this, this.outbox);
    this.liveness = new Liveness(runtime.clock, runtime.settings.deadPeerTimeoutMs, 'agent');
    // A port made only for a session with a budget (few have one): the watch's news and its default action's call.
    this.budget = init.budget?.({
      view: this,
      enqueue: (event) => this.enqueue(event),
      callForIt: (call, now, answer) => parts.calls.accept(this.calls, call, now, { source: 'budget', answer }),
    });
    this.delivery.decisions = this.budget;
  }

  /** `decisions`: the decisions judged against the session's budget; undefined without one. */
  get stats(): SessionStats & { decisions: DecisionCounts | undefined } {
    const counts = this.budget?.counts;
    return {
      decisionLatencyMs: this.delivery.decisionLatencyMs,
      decisions: counts === undefined ? undefined : { inBudget: counts.inBudget, overBudget: counts.overBudget },
      calls: this.ledger?.calls ?? 0,
      refusals: this.refusals + (this.ledger?.refusals ?? 0),
      eventsQueued: this.delivery.waiting,
      eventsDropped: this.delivery.droppedTotal,
      sent: this.outbox.sent,
    };
  }

  /**
   * This session's use of every tool it has called, for inspectors: calls that reached a handler
   * (`used`, what calls_per_session counts) and those inside the current calls_per_minute window.
   */
  toolUsage(now: number): ToolUsageSnapshot[] {
    return this.ledger?.toolUsage(now) ?? [];
  }

  /** What this session's calls leave behind (results, usage, running handlers): the call pipeline's, made on the first call. */
  private get calls(): SessionCalls {
    return (this.ledger ??= new SessionCalls(
      this.id,
      this.character,
      () => this.capabilities,
      this.outbox,
      this.delivery,
      this.parts.runtime.settings.resultCacheSize,
    ));
  }

  // ── links ──────────────────────────────────────────────────────────────────────────────────

  /** Starts the session on its first link: sends session_init. */
  open(wire: MessageWire): void {
    this.attach(wire);
    const manifest = this.parts.manifests.manifestFor(this);
    const { protocol: _p, type: _t, ...fields } = manifest;
    this.send({ type: 'session_init', ...fields });
  }

  /**
   * Takes a new link for a session_resume whose message_id names the last message the agent holds.
   * Replays what came after it, then a heartbeat that says the resume is done. False (and an error
   * on the new link) when the gap can no longer be filled.
   */
  resume(wire: MessageWire, lastMessageId: string): boolean {
    const known = this.outbox.sequenceOf(lastMessageId);
    if (known !== undefined && known > this.outbox.last) {
      this.sendError(wire, refusal('replay_gap', `session_resume: message ${lastMessageId} was never sent by session ${this.id}`));
      wire.close('bad resume');
      return false;
    }
    const missed = this.outbox.after(known ?? 0);
    if (missed === undefined) {
      this.sendError(
        wire,
        refusal(
          'replay_gap',
          `session_resume: messages after ${lastMessageId} are no longer retained (replay buffer holds ${this.parts.runtime.settings.replayBufferSize}); open a new session`,
        ),
      );
      wire.close('replay gap');
      this.close('replay gap', { notify: false });
      return false;
    }
    if (this.outbox.wire !== undefined && this.outbox.wire !== wire) this.dropWire('superseded by a resumed link');
    this.attach(wire);
    for (const message of missed) wire.send(message);
    this.send({ type: 'heartbeat' });
    this.parts.reports.changed(this, 'resumed', `replayed ${missed.length} messages`);
    this.delivery.schedule();
    return true;
  }

  private attach(wire: MessageWire): void {
    this.outbox.wire = wire;
    this.state = 'open';
    this.liveness.heard();
    this.clearTimer('graceTimer');
    wire.listen(this);
    this.startHeartbeat();
  }

  /** Drops the link and waits for a resume (the link closed, or the agent fell silent); a session that keeps no resume state ends. */
  private detach(reason: string): void {
    if (this.state !== 'open') return;
    if (!this.outbox.resumable) return this.close(reason, { notify: false });
    this.dropWire(reason);
    this.state = 'detached';
    const { clock, settings } = this.parts.runtime;
    this.graceTimer = clock.setTimeout(() => this.close('resume grace period ended', { notify: false }), settings.resumeGraceMs, UPKEEP);
    this.parts.reports.changed(this, 'detached', reason);
  }

  private dropWire(reason: string): void {
    const wire = this.outbox.wire;
    this.outbox.wire = undefined;
    this.parts.heartbeats.stop(this);
    this.delivery.stop();
    wire?.close(reason);
  }

  /** Ends the session; with notify, the agent gets a session_close first. */
  close(reason: string, options: { notify: boolean } = { notify: true }): void {
    if (this.state === 'closed') return;
    if (options.notify && this.outbox.wire !== undefined) this.send({ type: 'session_close', reason });
    this.state = 'closed';
    this.dropWire(reason);
    this.clearTimer('graceTimer');
    this.delivery.close();
    this.budget?.close();
    this.ledger?.close(reason);
    this.parts.reports.changed(this, 'closed', reason);
  }

  // ── inbound ────────────────────────────────────────────────────────────────────────────────

  // The link's Wire hands the session what it reads (WireHandlers); a superseded link's is ignored.

  /** A frame came: any frame from the agent is a sign of life. */
  frame(wire: MessageWire): void {
    if (this.outbox.wire === wire) this.liveness.heard();
  }

  /** Each message from the link. Nothing a peer sends may throw out: a failure here is ours. */
  message(message: AiccMessage, wire: MessageWire): void {
    if (this.outbox.wire !== wire) return;
    try {
      this.receive(message);
    } catch (error) {
      this.send({ type: 'error', error: refusal('internal', `the bridge failed while handling ${message.type}`) });
      this.parts.reports.hostError({
        code: 'bridge_failed',
        sessionId: this.id,
        message: `session: failed while handling ${message.type}: ${String(error)}`,
        cause: error,
      });
    }
  }

  /** A frame the Wire could not read, or a message it refused. */
  invalid(problem: InvalidFrame, wire: MessageWire): void {
    if (this.outbox.wire === wire) this.refuse(problem.call, problem.kind, problem.message);
  }

  /** The link closed: the session waits for a resume. */
  ended(reason: string, wire: MessageWire): void {
    if (this.outbox.wire === wire) this.detach(`link closed: ${reason}`);
  }

  private receive(message: AiccMessage): void {
    const { reports } = this.parts;
    if (reports.tapping) reports.tap(this, 'in', message);
    if (message.session_id !== this.id) {
      this.refuse(
        message.type === 'tool_call' ? { type: 'tool_call', callId: message.call_id } : undefined,
        'unknown_session',
        `${message.type}: session ${message.session_id} is not this link's session; resume or open a new session`,
      );
      return;
    }
    switch (message.type) {
      case 'tool_call':
        this.delivery.noteDecision();
        // Its frame's arrival, read once for the frame: the call's arrival too.
        this.parts.calls.accept(this.calls, message, this.liveness.lastHeardAt);
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
        const now = this.parts.runtime.clock.now();
        if (this.lastLiveResumeAt !== undefined && now - this.lastLiveResumeAt < LIVE_RESUME_INTERVAL_MS) {
          this.refuse(
            undefined,
            'rate_limited',
            `session_resume on the live link: at most one each ${LIVE_RESUME_INTERVAL_MS} ms; retry in ${Math.ceil(this.lastLiveResumeAt + LIVE_RESUME_INTERVAL_MS - now)} ms`,
          );
          return;
        }
        this.lastLiveResumeAt = now;
        // In this process the link cannot lose a message: nothing was missed, and the resume is done at once.
        if (!this.outbox.resumable) this.send({ type: 'heartbeat' });
        else if (this.outbox.wire !== undefined) this.resume(this.outbox.wire, message.message_id);
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
    // What was emitted under the old subscriptions is kept as it was heard.
    this.delivery.catchUp();
    this.subscriptions = new Set(update.event_subscriptions ?? []);
    this.topicMask = topicMask(this.subscriptions);
    this.parts.reports.subscriptionsChanged(this, before);
  }

  /**
   * A refused tool_call whose call_id could be read (checked, or peeked from a frame too large, deep
   * or broken to decode) is answered as a failed call, so the agent's call ends now; anything else gets `error`.
   */
  private refuse(call: FrameCall | undefined, kind: RefusalKind, message: string): void {
    this.refusals++;
    if (call?.type === 'tool_call' && kind !== 'protocol_mismatch') {
      this.send({ type: 'tool_result', call_id: call.callId, ok: false, error: refusal(kind, message), meta: { tick: 0, latency_ms: 0, source: 'bridge' } });
      return;
    }
    this.send({ type: 'error', error: refusal(kind, message) });
  }

  // ── events ──────────────────────────────────────────────────────────────────────────────────

  /** An event for this session alone (a targeted emit, a direct response). */
  enqueue(event: QueuedEvent): void {
    if (this.state !== 'closed') this.delivery.push(event);
  }

  // ── outbound ───────────────────────────────────────────────────────────────────────────────

  sendManifest(): void {
    this.send({ type: 'heartbeat', manifest_update: this.parts.manifests.manifestFor(this) });
  }

  /** Sequences a message, keeps it for replay (bare heartbeats excepted) and sends it if linked. */
  send(body: OutboundBody): void {
    if (this.state !== 'closed') this.outbox.send(body);
  }

  /** Bytes waiting unsent on the session's link; undefined while it has none (detached or closed). */
  get backlog(): number | undefined {
    return this.outbox.wire?.backlog;
  }

  private sendError(wire: MessageWire, error: WireError): void {
    wire.send({ protocol: PROTOCOL, type: 'error', session_id: this.id, message_id: randomUuid(this.parts.runtime.randomBytes), error });
  }

  private startHeartbeat(): void {
    this.parts.heartbeats.start(this);
  }

  /** A heartbeat: sent to a live agent, or the link dropped when the agent has been silent too long. */
  beat(): void {
    if (this.outbox.wire === undefined) return this.parts.heartbeats.stop(this);
    this.liveness.beat(
      () => this.send({ type: 'heartbeat' }),
      (reason) => this.detach(reason),
    );
  }

  private clearTimer(name: 'graceTimer'): void {
    const id = this[name];
    if (id !== undefined) this.parts.runtime.clock.clearTimeout(id);
    this[name] = undefined;
  }
}
