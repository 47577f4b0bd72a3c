// The Pilot: an AICC agent that lets a chat model play one character. It briefs the model once,
// then, whenever there is news, sends it a digest and reads the tool calls out of its reply, which
// go to the capsule as ordinary tool_calls through the AgentClient. It is driven by events and
// timers only; the capsule's tick loop never waits for it, nor it for the tick loop.

import { createEmitter, type Emitter } from '../../base/emitter.js';
import { messageOf } from '../../base/errors.js';
import type { PauseReason, PilotEvents, PilotOptions, PilotStatus } from './pilotOptions.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { EventMessage, Manifest } from '../../protocol/messages.js';
import { callsToolsNatively, type SendKind } from './backend.js';
import { DecisionMeter, type DecisionEnd } from './costs.js';
import { briefing } from './briefing.js';
import { Cadence } from './cadence.js';
import { catalogChanges } from './catalog.js';
import { Digest, isUrgent } from './digest.js';
import { executeCalls } from './execution.js';
import { LoopGuards } from './guards.js';
import { Quotas } from './quotas.js';
import { isUsable, parseReply, replyFeedback } from './replyParser.js';
import { countLatency, countReply, countSent, emptyStats, snapshot, type PilotStats } from './stats.js';

export type { PilotOptions, PilotStatus, PauseReason, PilotEvents } from './pilotOptions.js';

/**
 * @example
 * const pilot = new Pilot({ client, backend: new PeersBackend(peers), character: { id: 'cleo', goal: 'visit every room' } });
 * pilot.on('cost', (cost) => console.log(cost.totalMs, cost.inputTokens));
 * pilot.start();
 */
export class Pilot {
  private statusNow: PilotStatus = 'new';
  private pausedFor: PauseReason | undefined;
  private readonly bus: Emitter<PilotEvents> = createEmitter<PilotEvents>();
  private readonly clock: Clock;
  private readonly digest: Digest;
  private readonly quotas: Quotas;
  private readonly cadence: Cadence;
  private readonly guards: LoopGuards;
  private readonly stats_: PilotStats = emptyStats();
  private readonly meter: DecisionMeter;
  private readonly maxCalls: number;
  private readonly maxFollowUps: number;
  private manifest: Manifest;
  private briefed = false;
  /** Whether the model calls the tools natively: the option, else the backend's answer before the briefing. */
  private native: boolean | undefined;
  /** Text the backend refused, sent again ahead of the next digest so nothing is lost. */
  private unsent = '';
  /** Identifies the decision in progress: a stale one (aborted, then resumed) stops at its next await. */
  private cycle = 0;
  private followUps = 0;
  private steerQueued = false;
  private replyAbort: AbortController | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly options: PilotOptions) {
    this.clock = options.clock ?? realClock();
    this.manifest = options.client.manifest;
    this.digest = new Digest({ ...options.digest, self: options.character.id });
    this.quotas = new Quotas(this.clock);
    this.quotas.setTools(this.manifest.tools);
    this.cadence = new Cadence(this.clock, this.manifest.agent_model, options);
    this.guards = new LoopGuards(this.clock, options);
    this.maxCalls = options.maxCallsPerReply ?? 8;
    this.maxFollowUps = options.maxFollowUpsPerRun ?? 1;
    this.meter = new DecisionMeter(this.stats_.costs, options.maxDecisionCosts);
    this.native = options.nativeTools;
  }

  get status(): PilotStatus {
    return this.statusNow;
  }

  /** Whether the model calls the character's tools natively; undefined until the pilot knows (its first decision). */
  get nativeTools(): boolean | undefined {
    return this.native;
  }

  /** A copy of the counters. */
  get stats(): PilotStats {
    return snapshot(this.stats_);
  }

  on<K extends keyof PilotEvents>(type: K, handler: (event: PilotEvents[K]) => void): () => void {
    this.bus.on(type, handler);
    return () => this.bus.off(type, handler);
  }

  /** Listens to the session and sends the briefing; the pilot runs on its own from then on. */
  start(): void {
    if (this.statusNow !== 'new') return;
    const { client, backend } = this.options;
    // The session may have changed its declarations since construction: read them as they are now.
    this.manifest = client.manifest;
    this.quotas.setTools(this.manifest.tools);
    this.cadence.setModel(this.manifest.agent_model);
    this.unsubscribe.push(
      client.on('event', (event) => this.observe(event)),
      client.on('manifest', (manifest) => this.manifestChanged(manifest)),
      client.on('close', ({ reason }) => this.stop(`session closed: ${reason}`)),
    );
    const offs = [
      backend.observe?.((signal) => this.meter.signal(signal, this.clock.now())),
      backend.onGone?.((reason) => this.stop(`the agent is gone: ${reason}`)),
    ];
    this.unsubscribe.push(...offs.filter((off) => off !== undefined));
    this.setStatus('idle');
    void this.decide();
  }

  /** Resolves once the pilot is neither thinking nor acting (idle, paused or stopped). */
  whenIdle(): Promise<void> {
    if (this.statusNow !== 'thinking' && this.statusNow !== 'acting') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Lifts a pause (after failed replies, or an abort) and carries on with the news. */
  resume(): void {
    if (this.statusNow !== 'paused' || this.pausedFor === undefined) return;
    const reason = this.pausedFor;
    this.pausedFor = undefined;
    if (reason === 'failures') this.guards.reset();
    this.setStatus('idle');
    this.bus.emit('resume', { reason });
    this.schedule();
  }

  /** Stops the model's run and the wait for its reply; calls not yet sent are dropped. Pauses. */
  async abort(): Promise<void> {
    if (this.statusNow === 'stopped' || this.statusNow === 'new') return;
    this.pause('aborted', 'aborted by the host; resume() carries on');
    this.endDecision('aborted');
    this.replyAbort?.abort();
    try {
      await this.options.backend.abort();
    } catch (error) {
      this.bus.emit('error', { message: `backend.abort: ${messageOf(error)}` });
    }
  }

  /** Ends the pilot for good; the client and the backend stay open for their owner to close. */
  stop(reason = 'stopped'): void {
    if (this.statusNow === 'stopped') return;
    this.cadence.cancel();
    this.replyAbort?.abort();
    this.endDecision('stopped');
    for (const off of this.unsubscribe.splice(0)) off();
    this.setStatus('stopped');
    this.bus.emit('stop', { reason });
  }

  // ── news ───────────────────────────────────────────────────────────────────────────────────

  private observe(event: EventMessage): void {
    this.digest.addEvent(event);
    if (!this.digest.hasNews) return; // time passing alone is no reason to ask the model
    if (this.statusNow === 'thinking' && this.options.backend.busy && isUrgent(event, this.options.character.id)) this.steerSoon();
    else if (this.statusNow === 'idle' || this.statusNow === 'thinking') this.schedule();
  }

  private manifestChanged(manifest: Manifest): void {
    for (const note of catalogChanges(this.manifest.tools, manifest.tools, manifest.capabilities)) this.digest.addNote(note);
    this.manifest = manifest;
    this.quotas.setTools(manifest.tools);
    this.cadence.setModel(manifest.agent_model);
    if (this.digest.hasNews) this.schedule();
  }

  /** News waits a moment (the cadence) so a burst leaves as one digest. */
  private schedule(): void {
    if (this.statusNow === 'paused' || this.statusNow === 'stopped') return;
    this.cadence.gather(() => {
      if (this.statusNow === 'idle') void this.decide();
      else if (this.statusNow === 'thinking' && this.options.backend.busy && this.followUps < this.maxFollowUps && this.digest.hasNews)
        void this.interject('follow_up');
    });
  }

  /** Urgent news goes at once, but events delivered in one batch leave as one steer. */
  private steerSoon(): void {
    if (this.steerQueued) return;
    this.steerQueued = true;
    queueMicrotask(() => {
      this.steerQueued = false;
      if (this.statusNow === 'thinking' && this.digest.hasNews) void this.interject('steer');
    });
  }

  /** Sends the news into the model's running turn: urgent news as a steer, the rest as a follow-up. */
  private async interject(kind: 'steer' | 'follow_up'): Promise<void> {
    if (kind === 'follow_up') this.followUps++;
    const text = (kind === 'steer' ? 'Urgent news while you answer:\n' : 'More news while you answer:\n') + this.takeDigest();
    await this.send(kind, text, false);
  }

  // ── decisions ──────────────────────────────────────────────────────────────────────────────

  private async decide(): Promise<void> {
    const wait = this.guards.waitMs();
    if (wait > 0) return this.rateLimited(wait);
    const cycle = ++this.cycle;
    this.cadence.cancel();
    this.guards.decided();
    this.stats_.decisions++;
    this.followUps = 0;
    this.setStatus('thinking');
    const isBriefing = !this.briefed;
    if (isBriefing && this.native === undefined) {
      this.native = await callsToolsNatively(this.options.backend, this.options.character.id, (message) => this.bus.emit('error', { message }));
      if (cycle !== this.cycle || this.statusNow !== 'thinking') return;
    }
    const text = isBriefing ? this.brief() : this.takeDigest();
    const started = this.clock.now();
    this.meter.begin(this.stats_.decisions, started);
    const sent = await this.send(this.options.backend.busy ? 'follow_up' : 'prompt', text, isBriefing);
    if (cycle !== this.cycle || this.statusNow !== 'thinking') return;
    if (!sent) return this.failed('send_failed');
    this.briefed = true;
    this.replyAbort = new AbortController();
    let reply: string | null = null;
    try {
      reply = await this.options.backend.reply(this.replyAbort.signal);
    } catch (error) {
      if (cycle !== this.cycle || this.statusNow !== 'thinking') return;
      this.bus.emit('error', { message: `backend.reply: ${messageOf(error)}` });
      return this.failed('reply_failed');
    }
    if (cycle !== this.cycle || this.statusNow !== 'thinking') return;
    await this.readReply(cycle, reply, started);
  }

  private async readReply(cycle: number, reply: string | null, started: number): Promise<void> {
    const latencyMs = this.clock.now() - started;
    this.meter.replied(this.clock.now());
    this.cadence.record(latencyMs);
    countLatency(this.stats_, latencyMs);
    if (this.native === true) return this.nativeReply(reply, latencyMs);
    const parsed = parseReply(reply, { knownTools: new Set(this.manifest.tools.map((tool) => tool.id)) });
    countReply(this.stats_, parsed);
    const notes = replyFeedback(parsed, reply);
    for (const note of notes) this.digest.addNote(note);
    this.bus.emit('decision', { reply, calls: parsed.calls, notes, latencyMs });
    if (this.guards.replied(isUsable(parsed))) {
      this.endDecision('replied');
      return this.pause('failures', `${this.guards.failures} replies in a row had no usable calls; resume() to try again`);
    }
    this.setStatus('acting');
    await executeCalls(parsed.calls, {
      client: this.options.client,
      digest: this.digest,
      quotas: this.quotas,
      stats: this.stats_,
      maxCalls: this.maxCalls,
      stillCurrent: () => cycle === this.cycle && this.statusNow === 'acting',
      sending: () => this.meter.callSent(this.clock.now()),
    });
    if (cycle !== this.cycle || this.statusNow !== 'acting') return;
    this.settle();
  }

  /** With native tools the model has acted already, through its own tool calls: the turn is over. */
  private nativeReply(reply: string | null, latencyMs: number): void {
    this.bus.emit('decision', { reply, calls: [], notes: [], latencyMs });
    this.guards.replied(true);
    this.settle();
  }

  /** The decision is over: idle until news, or a quiet while (a waiting character still wakes). */
  private settle(): void {
    this.endDecision('replied');
    this.setStatus('idle');
    if (this.digest.hasNews) this.schedule();
    this.cadence.wakeAfterQuiet(() => {
      if (this.statusNow === 'idle') void this.decide();
    });
  }

  /** The backend refused the text (kept for the next try), or lost the reply (no call of it runs): a failure, as an unusable reply is. */
  private failed(ended: 'send_failed' | 'reply_failed'): void {
    this.endDecision(ended);
    const what = ended === 'send_failed' ? 'refused' : 'lost the replies to';
    if (this.guards.replied(false)) return this.pause('failures', `the backend ${what} ${this.guards.failures} decisions in a row; resume() to try again`);
    this.setStatus('idle');
    this.schedule();
  }

  /** Sends text to the model; false (and the text kept for the next send) when the backend refuses. */
  private async send(kind: SendKind, text: string, isBriefing: boolean): Promise<boolean> {
    const full = isBriefing || this.unsent === '' ? text : `${this.unsent}\n${text}`;
    this.unsent = '';
    try {
      await this.options.backend.send(kind, full);
    } catch (error) {
      if (!isBriefing) this.unsent = full;
      this.bus.emit('error', { message: `backend.send(${kind}): ${messageOf(error)}` });
      return false;
    }
    countSent(this.stats_, kind, full, isBriefing);
    this.bus.emit('sent', { kind, text: full });
    return true;
  }

  private brief(): string {
    const { character, notes } = this.options;
    return briefing({
      character,
      manifest: this.manifest,
      maxCallsPerReply: this.maxCalls,
      ...(notes !== undefined && { notes }),
      ...(this.native === true && { nativeTools: true }),
    });
  }

  private takeDigest(): string {
    if (!this.digest.hasNews) this.digest.addNote('Nothing new.');
    return this.digest.take((called) => this.quotas.summary(called));
  }

  // ── pauses and timers ──────────────────────────────────────────────────────────────────────

  private pause(reason: PauseReason, message: string): void {
    this.cadence.cancel();
    this.pausedFor = reason;
    this.stats_.pauses++;
    this.setStatus('paused');
    this.bus.emit('pause', { reason, message });
  }

  /** Too many decisions this minute: pause, and carry on by itself when the window allows. */
  private rateLimited(waitMs: number): void {
    this.pause('rate', `${this.guards.maxDecisionsPerMinute} decisions in the last minute; the next in ${Math.ceil(waitMs)} ms`);
    this.cadence.later(waitMs, () => this.pausedFor === 'rate' && this.resume());
  }

  /** Ends the decision in progress, if any, and tells the host what it cost. */
  private endDecision(ended: DecisionEnd): void {
    const record = this.meter.end(this.clock.now(), ended);
    if (record !== undefined) this.bus.emit('cost', record);
  }

  private setStatus(status: PilotStatus): void {
    this.statusNow = status;
    if (status === 'thinking' || status === 'acting') return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
