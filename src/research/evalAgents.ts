// The agents an eval seats, browser-safe: a world's scripted policy by name; a model through the
// direct model backend and the pilot, given its turn as a value (src/node/model/piAi.ts makes one from
// pi-ai; a cassette replays one); and any chat agent a pilot can drive (pi over pi-peers or
// pi-daemon: src/node/pi opens them). Programs in other processes join through src/node/eval.
//
// Time: the world's clock stands still while the agent thinks. After each tick the episode waits
// until no model request (or chat reply) of the seat is in flight; a call the agent sent is answered
// at the next tick, so waiting for its result is not thinking.

import { CapsuleError } from '../base/errors.js';
import type { ModelExchange } from '../agent/model/cassette.js';
import { recordingTurn } from '../agent/model/cassette.js';
import { ModelBackend } from '../agent/model/modelBackend.js';
import type { ModelTurn } from '../agent/model/modelPort.js';
import type { ChatBackend } from '../agent/pilot/backend.js';
import { ProviderGate } from '../agent/model/providerGate.js';
import { Pilot } from '../agent/pilot/pilot.js';
import type { EvalAgent, EvalDecision, EvalSeat, SeatedAgent, WallClock } from './evalEpisode.js';
import type { AgentFailureKind } from './evalResult.js';

/** The name a world's own policy goes by (`policy:world`); a world's other policies go by their own. */
export const WORLD_POLICY = 'world';

/** The world's policy `name` (WORLD_POLICY for its own, or one of EpisodeWorld.policies). */
export function policyAgent(name: string): EvalAgent {
  return async (seat) => {
    const policy = name === WORLD_POLICY ? seat.episode.policy : seat.episode.policies?.[name];
    if (policy === undefined) {
      const known = [...(seat.episode.policy !== undefined ? [WORLD_POLICY] : []), ...Object.keys(seat.episode.policies ?? {})];
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `eval: the world has no policy ${JSON.stringify(name)}; it has ${known.join(', ') || 'none'} (policy:NAME)`,
      );
    }
    policy({ character: seat.character, client: await seat.client(), random: seat.random });
    // A policy decides on news within the tick, on the world's clock: nothing for the episode to wait for.
    return { settled: () => undefined, failure: undefined, takeDecisions: () => [], close: async () => undefined };
  };
}

export interface ModelAgentOptions {
  /** The seat's model turn (one per seat: a live model's, or a cassette's for that character). */
  turnOf(seat: EvalSeat): ModelTurn;
  /** Each model exchange as it ends, with the tick it ended at: the episode's cassette, which a replay answers from. */
  exchange?: (exchange: ModelExchange, tick: number) => void;
  /** Replaces the backend's short default system prompt. */
  systemPrompt?: string;
  /** Model requests of this agent in flight at once, per seat. Default 1. */
  maxConcurrent?: number;
  /** Wall time, for each decision's latency. Default performance.now. */
  wall?: Pick<WallClock, 'now'>;
  /**
   * A slot each model request takes first and gives back after (an eval's bound on requests in flight
   * to the provider). The wait for it counts towards the hang deadline, not towards the latency.
   */
  slot?: { acquire(): Promise<void>; release(): void };
}

/** A model playing the seat's character: the pilot briefs it, its native tools are the character's. */
export function modelAgent(options: ModelAgentOptions): EvalAgent {
  return async (seat) => {
    const client = await seat.client();
    const now = options.wall?.now ?? defaultNow;
    const timing = new TurnTiming(now);
    const live = options.turnOf(seat);
    const { exchange, slot } = options;
    const recorded =
      exchange === undefined ? live : recordingTurn(live, { character: seat.character, tick: seat.tick, record: (each) => exchange(each, seat.tick()) });
    const timed: ModelTurn = (request, turnOptions) => {
      // The wait for a slot counts towards the hang deadline, not towards the latency.
      if (slot === undefined) return timing.track(() => recorded(request, turnOptions));
      return timing.track(
        () => recorded(request, turnOptions).finally(() => slot.release()),
        () => slot.acquire(),
      );
    };
    const clock = seat.capsule.clock;
    const gate = new ProviderGate({ maxConcurrent: options.maxConcurrent ?? 1, clock });
    // Messages stamped on the world's clock, not the wall's: a replay sends byte-identical requests.
    const backend = new ModelBackend({
      client,
      turn: timed,
      gate,
      now: () => clock.now(),
      ...(options.systemPrompt !== undefined && { systemPrompt: options.systemPrompt }),
    });
    return new SeatedPilot(seat, client, backend, timing, {
      failureKind: () => (backend.lastFailure === 'garbage' ? 'garbage' : 'crashed'),
      close: async () => backend.close(),
    });
  };
}

/** A chat agent the seat opens, and how to close it (pi behind a gateway, a pi-daemon session). */
export interface OpenedChat {
  backend: ChatBackend;
  close(): Promise<void>;
}

export interface ChatAgentOptions {
  /** Opens the seat's own chat agent: a fresh conversation for each character of each episode. */
  open(seat: EvalSeat): Promise<OpenedChat>;
  /** Wall time, for each decision's latency. Default performance.now. */
  wall?: Pick<WallClock, 'now'>;
}

/**
 * A chat agent (pi, or any ChatBackend) playing the seat's character through the pilot's text
 * protocol: the pilot briefs it, sends it each tick's news and reads the calls out of its replies.
 */
export function chatAgent(options: ChatAgentOptions): EvalAgent {
  return async (seat) => {
    const client = await seat.client();
    const opened = await options.open(seat);
    const timing = new TurnTiming(options.wall?.now ?? defaultNow);
    return new SeatedPilot(seat, client, timedReplies(opened.backend, timing), timing, {
      failureKind: () => 'crashed',
      close: () => opened.close(),
      // Native tool calls would reach the capsule while the reply is awaited, and wait for a tick that waits for the reply.
      nativeTools: false,
    });
  };
}

const defaultNow = (): number => globalThis.performance.now();

/** Macrotasks the episode yields before it looks for a model turn in flight: a tick's news reaches the model's request in fewer. */
const SETTLE_ROUNDS = 3;

const macrotask: () => Promise<void> =
  typeof globalThis.setImmediate === 'function'
    ? () => new Promise((resolve) => globalThis.setImmediate(resolve))
    : () => new Promise((resolve) => globalThis.setTimeout(resolve, 0));

/** The agent's turns in flight, and the wall ms they took since the last decision ended. */
class TurnTiming {
  readonly inFlight = new Set<Promise<unknown>>();
  private ms = 0;

  constructor(private readonly now: () => number) {}

  /** Runs `turn` (after `first`, whose time is not the turn's), timed and tracked until it settles. */
  track<T>(turn: () => Promise<T>, first?: () => Promise<void>): Promise<T> {
    let started = this.now();
    const reply =
      first === undefined
        ? turn()
        : first().then(() => {
            started = this.now();
            return turn();
          });
    const tracked = reply.finally(() => {
      this.ms += this.now() - started;
      this.inFlight.delete(tracked);
    });
    this.inFlight.add(tracked);
    tracked.catch(() => undefined);
    return reply;
  }

  /** The ms of the decision just ended, from zero again. */
  take(): number {
    const ms = this.ms;
    this.ms = 0;
    return ms;
  }

  /** Resolves once nothing is in flight after a tick's news had time to set a turn off, or `stop` says so. */
  async settle(stop: () => boolean): Promise<void> {
    for (;;) {
      for (let round = 0; round < SETTLE_ROUNDS; round++) await macrotask();
      if (this.inFlight.size === 0 || stop()) return;
      await Promise.allSettled([...this.inFlight]);
    }
  }
}

/** `backend`, its sends and replies timed and tracked: from a send to its reply, the agent is thinking. */
function timedReplies(backend: ChatBackend, timing: TurnTiming): ChatBackend {
  return {
    send: (kind, text) => timing.track(() => backend.send(kind, text)),
    reply: (signal) => timing.track(() => backend.reply(signal)),
    get busy() {
      return backend.busy;
    },
    abort: () => backend.abort(),
    close: () => backend.close(),
    ...(backend.observe !== undefined && { observe: (listener) => backend.observe!(listener) }),
    ...(backend.onGone !== undefined && { onGone: (listener) => backend.onGone!(listener) }),
  };
}

/** A pilot at the seat's character over `backend`: each decision's cost becomes an EvalDecision. */
class SeatedPilot implements SeatedAgent {
  failure: SeatedAgent['failure'];
  private readonly pilot: Pilot;
  private readonly decisions: EvalDecision[] = [];
  /** The pilot's last error: why its turns failed, for the failure's reason. */
  private lastError: string | undefined;

  constructor(
    seat: EvalSeat,
    client: Awaited<ReturnType<EvalSeat['client']>>,
    backend: ChatBackend,
    private readonly timing: TurnTiming,
    private readonly how: { failureKind(): AgentFailureKind; close(): Promise<void>; nativeTools?: boolean },
  ) {
    const brief = seat.episode.brief?.(seat.character) ?? {};
    this.pilot = new Pilot({
      client,
      backend,
      character: { ...brief, id: seat.character },
      clock: seat.capsule.clock,
      ...(how.nativeTools !== undefined && { nativeTools: how.nativeTools }),
    });
    this.pilot.on('cost', (cost) => {
      this.decisions.push({
        character: seat.character,
        ms: this.timing.take(),
        inputTokens: cost.inputTokens ?? 0,
        outputTokens: cost.outputTokens ?? 0,
        costUsd: cost.costUsd ?? 0,
      });
    });
    this.pilot.on('stop', ({ reason }) => {
      if (reason !== 'episode over') this.failure ??= { kind: 'disconnected', reason };
    });
    this.pilot.on('error', ({ message }) => {
      this.lastError = message;
    });
    this.pilot.on('pause', ({ reason, message }) => {
      // Turns that kept failing: answers that are not a model's message at all, or the provider's errors.
      if (reason === 'failures') this.failure ??= { kind: this.how.failureKind(), reason: this.lastError ?? message };
    });
    this.pilot.start();
  }

  settled(): Promise<void> {
    return this.timing.settle(() => this.failure !== undefined);
  }

  takeDecisions(): EvalDecision[] {
    return this.decisions.splice(0);
  }

  async close(reason: string): Promise<void> {
    this.pilot.stop(reason === 'episode over' ? reason : `closed: ${reason}`);
    await this.how.close();
  }
}
