// The agent's side of aicc/0.1 as an API: wait for the manifest, `await call(tool, input)`, listen
// to events, keep the link alive with heartbeats, and resume on a new link after a drop without
// losing or repeating a message.

import { createEmitter, type Emitter } from '../base/emitter.js';
import type { Link } from '../links/link.js';
import { frameBounds, Wire, type InvalidFrame, type SharedEvent } from '../protocol/wire.js';
import { directEndOf, type MessageWire } from '../protocol/directWire.js';
import { eventMessage } from '../protocol/eventMessage.js';
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from '../protocol/inbound.js';
import { refusal } from '../protocol/refusals.js';
import { clientSettings, type AgentClientOptions, type AgentEvents, type CallOptions, type ClientSettings } from './agentOptions.js';
import { WaitingCalls, type CallOutcome } from './waitingCalls.js';
import { realClock, type Clock } from '../base/clock.js';
import { Heartbeats, Liveness } from '../runtime/heartbeats.js';
import { CapsuleError } from '../base/errors.js';
import { cryptoBytes, SequencedIds } from '../protocol/ids.js';
import { HeardMark } from './heardMark.js';
import { checkBridgeMessage } from '../protocol/messageCheck.js';
import { IMMEDIATE_MARK, PROTOCOL, type AgentModel, type AiccMessage, type JsonObject, type Manifest, type WireError } from '../protocol/messages.js';

export type { AgentClientOptions, AgentEvents, CallOptions } from './agentOptions.js';
export type { CallOutcome } from './waitingCalls.js';

/** A call this client refuses itself, before sending anything. */
function refusedHere<O>(callId: string, code: WireError['code'], message: string, retryable: boolean): Promise<CallOutcome<O>> {
  return Promise.resolve({ ok: false, error: { code, message, retryable }, meta: {}, callId, local: true });
}

export class AgentClient {
  sessionId = '';
  manifest!: Manifest;
  state: 'connecting' | 'open' | 'disconnected' | 'closed' = 'connecting';

  private readonly bus: Emitter<AgentEvents> = createEmitter<AgentEvents>();
  private readonly clock: Clock;
  private readonly settings: ClientSettings;
  /** The bounds the bridge reads this client's frames with (bridgeLimits, under the link's framing). */
  private readonly bridgeBounds: InboundLimits;
  private wire: MessageWire;
  /** What this client has heard: the mark a resume names. */
  private readonly heardMark: HeardMark;
  private readonly pending: WaitingCalls;
  private readonly liveness: Liveness;
  /** This client's one member is itself: the same beat the capsule gives all its sessions. */
  private readonly heartbeats: Heartbeats;
  private nextCall = 1;
  /** The bridge is in this process (trustBridge): its messages are taken as it built them. */
  private readonly trusted: boolean;
  /** Whether anyone listens for whole `event` messages. */
  private hearsEvents = false;
  /** This client's own message ids: one random prefix, then a count (random bytes per message cost more than the call). */
  private readonly ids: SequencedIds;
  private sent = 0;
  private onInit: ((error?: Error) => void) | undefined;
  /** The resume under way: settled once, by its confirmation, a refusal, a drop or its timeout. */
  private resuming: { settle(error?: Error): void } | undefined;

  private constructor(
    link: Link,
    private readonly options: AgentClientOptions,
  ) {
    this.clock = options.clock ?? realClock();
    this.settings = clientSettings(options);
    this.bridgeBounds = frameBounds({ ...DEFAULT_INBOUND_LIMITS, ...options.bridgeLimits }, options.framing);
    this.liveness = new Liveness(this.clock, this.settings.deadPeerTimeoutMs, 'bridge');
    this.heartbeats = new Heartbeats(this.clock, this.settings.heartbeatIntervalMs);
    this.pending = new WaitingCalls(this.clock);
    this.ids = new SequencedIds(options.randomBytes ?? cryptoBytes);
    this.trusted = options.trustBridge === true;
    this.heardMark = new HeardMark(this.settings.maxSequenceJump);
    this.wire = this.wireFor(link);
    this.listen(this.wire);
  }

  /** The link's Wire, or a trusted bridge's direct end behind it (connectInProcess with objectCodec). */
  private wireFor(link: Link): MessageWire {
    return (this.trusted ? directEndOf(link) : undefined) ?? new Wire(link, this.trusted ? 'trusted' : checkBridgeMessage, this.options);
  }

  /**
   * Waits on this link for the bridge's session_init.
   *
   * @example
   * const agent = await AgentClient.connect(await connectWebSocket('ws://127.0.0.1:8080/aicc'));
   * console.log(agent.manifest.tools.map((tool) => tool.id));
   * const moved = await agent.call('move_to', { x: 3, y: 4 });
   * if (!moved.ok) console.log(moved.error.code, moved.error.message);
   */
  static connect(link: Link, options: AgentClientOptions = {}): Promise<AgentClient> {
    const client = new AgentClient(link, options);
    return new Promise((resolve, reject) => {
      const timer = client.clock.setTimeout(() => {
        client.onInit = undefined;
        client.wire.close('no session_init');
        reject(new CapsuleError('AICC_NOT_CONNECTED', `AgentClient.connect: no session_init within ${client.settings.connectTimeoutMs} ms`));
      }, client.settings.connectTimeoutMs);
      client.onInit = (error) => {
        client.clock.clearTimeout(timer);
        client.onInit = undefined;
        if (error) reject(error);
        else resolve(client);
      };
    });
  }

  on<K extends keyof AgentEvents>(type: K, handler: (event: AgentEvents[K]) => void): () => void {
    this.bus.on(type, handler);
    this.hearsEvents = this.bus.all.has('event');
    return () => {
      this.bus.off(type, handler);
      this.hearsEvents = this.bus.all.has('event');
    };
  }

  /** Calls a tool and resolves with its outcome; never rejects. */
  call<O = JsonObject>(tool: string, input: JsonObject = {}, options?: CallOptions): Promise<CallOutcome<O>> {
    let callId = options?.callId ?? `c${this.nextCall++}`;
    if (options?.immediate === true && !callId.startsWith(IMMEDIATE_MARK)) callId = IMMEDIATE_MARK + callId;
    if (this.state === 'closed') return refusedHere(callId, 'session_expired', 'the session is closed', false);
    // The schema wants one character; the bridge could answer an empty call_id with no tool_result.
    if (callId === '') return refusedHere(callId, 'invalid_input', `${tool}: not sent: callId must not be empty`, false);
    if (this.pending.has(callId)) return refusedHere(callId, 'invalid_input', `call ${callId} is already waiting for its result`, false);
    if (this.pending.size >= this.settings.maxPendingCalls)
      return refusedHere(callId, 'tool_unavailable', `${this.settings.maxPendingCalls} calls already wait for results`, true);
    // What the bridge would refuse at its first gate is refused here, with its code: sent, it would
    // come back as an `error` naming no call, and the call would wait for a timeout that invites a retry.
    const encoded = this.wire.encodeWithin(
      { protocol: PROTOCOL, type: 'tool_call', session_id: this.sessionId, message_id: this.ids.idOf(this.sent + 1), call_id: callId, tool, input },
      this.bridgeBounds,
    );
    if (!encoded.ok) {
      const error = refusal(encoded.kind, `${tool}: not sent, the bridge refuses it at its wire: ${encoded.message}`);
      return refusedHere(callId, error.code, error.message, error.retryable);
    }
    const timeoutMs = options?.timeoutMs ?? this.settings.callTimeoutMs;
    return new Promise((resolve) => {
      this.pending.wait(callId, timeoutMs, tool, resolve);
      // While disconnected the call waits in `pending`; the caller retries with the same callId after resume.
      if (this.sessionId === '' || !this.wire.open) return;
      this.sent++;
      this.wire.sendFrame(encoded.value);
    });
  }

  /**
   * Asks for the current manifest; resolves when it arrives. Rejects with AICC_SESSION_CLOSED if the
   * session is or becomes closed, and with AICC_NOT_CONNECTED while disconnected (resume first) or
   * when no manifest comes within `callTimeoutMs`.
   */
  requestManifest(): Promise<Manifest> {
    return this.manifestAfter('requestManifest', { type: 'manifest_request' });
  }

  /** Changes what this agent declares: its event subscriptions and/or its model. Resolves and rejects as `requestManifest`. */
  declare(changes: { subscriptions?: readonly string[]; agentModel?: AgentModel }): Promise<Manifest> {
    const { tools, ...rest } = this.manifest;
    const update = { protocol: PROTOCOL, type: 'session_init' as const, ...rest, tools };
    if (changes.agentModel) update.agent_model = changes.agentModel;
    if (changes.subscriptions) update.event_subscriptions = [...changes.subscriptions];
    return this.manifestAfter('declare', { type: 'heartbeat', manifest_update: update });
  }

  /** Sends a message the bridge answers with the manifest, and waits for that manifest. */
  private manifestAfter(method: string, body: { type: AiccMessage['type'] } & Record<string, unknown>): Promise<Manifest> {
    const where = `AgentClient.${method}`;
    if (this.state === 'closed') return Promise.reject(new CapsuleError('AICC_SESSION_CLOSED', `${where}: the session is closed`));
    if (this.state !== 'open') return Promise.reject(new CapsuleError('AICC_NOT_CONNECTED', `${where}: the session is ${this.state}; resume it first`));
    return new Promise((resolve, reject) => {
      const settle = (outcome: Manifest | CapsuleError): void => {
        offManifest();
        offClose();
        this.clock.clearTimeout(timer);
        if (outcome instanceof CapsuleError) reject(outcome);
        else resolve(outcome);
      };
      const offManifest = this.on('manifest', settle);
      const offClose = this.on('close', ({ reason }) => settle(new CapsuleError('AICC_SESSION_CLOSED', `${where}: the session closed (${reason})`)));
      const timeoutMs = this.settings.callTimeoutMs;
      const timer = this.clock.setTimeout(
        () => settle(new CapsuleError('AICC_NOT_CONNECTED', `${where}: no manifest from the bridge within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.send(body);
    });
  }

  /**
   * Continues the session on a new link: names the last message held, receives exactly the missed
   * ones, and resolves when the bridge confirms. Rejects (AICC_SESSION_CLOSED) if the bridge cannot
   * resume the session, and (AICC_NOT_CONNECTED) if the new link drops first or no confirmation
   * comes within `resumeTimeoutMs`; the client is then disconnected and may resume again.
   */
  resume(link: Link): Promise<void> {
    if (this.state === 'closed') return Promise.reject(new CapsuleError('AICC_SESSION_CLOSED', 'AgentClient.resume: the session is closed'));
    this.resuming?.settle(new CapsuleError('AICC_NOT_CONNECTED', 'AgentClient.resume: superseded by a later resume'));
    if (this.wire.open) this.wire.close('resuming on a new link');
    this.stopHeartbeat();
    this.wire = this.wireFor(link);
    this.listen(this.wire);
    this.state = 'connecting';
    return new Promise((resolve, reject) => {
      const wire = this.wire;
      const offError = this.on('error', (error) => {
        if (error.code === 'session_expired') attempt.settle(new CapsuleError('AICC_SESSION_CLOSED', `AgentClient.resume: ${error.message}`));
      });
      const timer = this.clock.setTimeout(() => {
        attempt.settle(new CapsuleError('AICC_NOT_CONNECTED', `AgentClient.resume: the bridge did not confirm within ${this.settings.resumeTimeoutMs} ms`));
        if (this.wire === wire) {
          if (this.state === 'connecting') this.state = 'disconnected';
          wire.close('no resume confirmation');
        }
      }, this.settings.resumeTimeoutMs);
      const attempt = {
        settle: (error?: Error): void => {
          if (this.resuming !== attempt) return;
          this.resuming = undefined;
          offError();
          this.clock.clearTimeout(timer);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      this.resuming = attempt;
      this.wire.send({ protocol: PROTOCOL, type: 'session_resume', session_id: this.sessionId, message_id: this.heardMark.id });
    });
  }

  /** Ends the session; resolves when the bridge has acknowledged or the link is gone. */
  close(reason = 'agent done'): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.on('close', () => {
        off();
        resolve();
      });
      this.send({ type: 'session_close', reason });
      if (!this.wire.open) this.shutdown(reason);
    });
  }

  // ── inbound ────────────────────────────────────────────────────────────────────────────────

  private listen(wire: MessageWire): void {
    wire.listen({
      frame: () => {
        if (this.wire === wire) this.liveness.heard();
      },
      message: (message) => this.wire === wire && this.receive(message),
      invalid: (problem) => this.wire === wire && this.refused(problem),
      ended: (reason) => this.wire === wire && this.dropped(reason),
      sharedEvent: (event) => this.wire === wire && this.sessionId !== '' && this.heard(event),
    });
  }

  /**
   * A broadcast event straight from the capsule's log (a direct wire): its topic's listeners get the
   * payload; a whole `event` message is made only for listeners of those, with the id it would have
   * carried — the next of the stream: a direct session hands its link every message it numbers.
   */
  private heard(event: SharedEvent): void {
    this.heardMark.shared();
    if (this.hearsEvents) this.bus.emit('event', eventMessage(this.sessionId, this.heardMark.id, event));
    this.bus.emit(event.topic, event.payload as AgentEvents[typeof event.topic]);
  }

  private receive(message: AiccMessage): void {
    if (message.type === 'session_init') {
      if (this.sessionId !== '') return;
      this.sessionId = message.session_id;
      this.heardMark.begin(message.message_id);
      const { protocol: _p, type: _t, session_id: _s, message_id: _m, ...manifest } = message;
      this.manifest = manifest;
      this.state = 'open';
      this.startHeartbeat();
      this.onInit?.();
      return;
    }
    if (message.session_id !== this.sessionId) return;
    // A bridge in this process sends each message once, in order, but for the replay a resume asks for.
    if (this.trusted && this.resuming === undefined) this.heardMark.trust(message.message_id);
    else {
      const heard = this.heardMark.judge(message.message_id);
      if (heard === 'repeat') return;
      if (heard !== 'new') {
        this.bus.emit('error', {
          code: 'invalid_input',
          message: `bridge message ${message.type} jumps from sequence ${heard.jumpFrom} to ${heard.to} (more than maxSequenceJump ${this.settings.maxSequenceJump}); dropped`,
          retryable: false,
        });
        return;
      }
    }
    switch (message.type) {
      case 'tool_result': {
        this.pending.settle(message);
        return;
      }
      case 'event':
        // Every event passes here: the whole message goes out only to someone listening for it.
        if (this.hearsEvents) this.bus.emit('event', message);
        this.bus.emit(message.topic, message.payload as AgentEvents[typeof message.topic]);
        return;
      case 'heartbeat':
        if (this.state === 'connecting' && this.resuming !== undefined) {
          this.state = 'open';
          this.startHeartbeat();
          this.resuming.settle();
        }
        if (message.manifest_update !== undefined) {
          const { protocol: _p, type: _t, ...manifest } = message.manifest_update;
          this.manifest = manifest;
          this.bus.emit('manifest', manifest);
        }
        return;
      case 'error':
        this.bus.emit('error', message.error);
        return;
      case 'session_close':
        this.shutdown(message.reason ?? 'closed by bridge');
        return;
      default:
        return;
    }
  }

  private refused(problem: InvalidFrame): void {
    this.bus.emit('error', {
      code: problem.kind === 'protocol_mismatch' ? 'protocol_mismatch' : 'invalid_input',
      message: `bridge sent an invalid message: ${problem.message}`,
      retryable: false,
    });
    // A result refused here still ends its call: waiting on would end in a retryable timeout, and the
    // retry would get the same result (from the bridge's cache) and the same refusal.
    const call = problem.call;
    if (call?.type === 'tool_result' && (call.sessionId === undefined || call.sessionId === this.sessionId)) {
      this.pending.fail(call.callId, (tool) =>
        refusal(problem.kind, `${tool}: the bridge's tool_result for ${call.callId} was refused here: ${problem.message}`),
      );
    }
  }

  private dropped(reason: string): void {
    this.stopHeartbeat();
    if (this.state === 'closed' || this.state === 'disconnected') return;
    if (this.sessionId === '') {
      this.onInit?.(new CapsuleError('AICC_NOT_CONNECTED', `AgentClient.connect: link closed before session_init (${reason})`));
      this.shutdown(reason);
      return;
    }
    this.state = 'disconnected';
    this.resuming?.settle(new CapsuleError('AICC_NOT_CONNECTED', `AgentClient.resume: the new link closed before the bridge confirmed (${reason})`));
    this.bus.emit('disconnect', { reason });
  }

  private shutdown(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stopHeartbeat();
    this.pending.endAll(reason);
    this.resuming?.settle(new CapsuleError('AICC_SESSION_CLOSED', `AgentClient.resume: the session closed (${reason})`));
    if (this.wire.open) this.wire.close(reason);
    this.bus.emit('close', { reason });
  }

  // ── outbound ───────────────────────────────────────────────────────────────────────────────

  private send(body: { type: AiccMessage['type'] } & Record<string, unknown>): void {
    if (this.sessionId === '' || !this.wire.open) return;
    this.wire.send({ protocol: PROTOCOL, session_id: this.sessionId, message_id: this.ids.idOf(++this.sent), ...body } as AiccMessage);
  }

  private startHeartbeat(): void {
    this.heartbeats.start(this.pulse);
  }

  /** One beat: a heartbeat to the bridge, or the link dropped when it has been silent too long (the link's close handler reports it). */
  private readonly pulse = {
    beat: (): void => {
      if (this.state !== 'open') return this.heartbeats.stop(this.pulse);
      this.liveness.beat(
        () => this.send({ type: 'heartbeat' }),
        (reason) => this.wire.close(reason),
      );
    },
  };

  private stopHeartbeat(): void {
    this.heartbeats.stop(this.pulse);
  }
}
