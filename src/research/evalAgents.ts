// The agents an eval seats, browser-safe: a world's scripted policy by name, and a model through the
// direct model backend and the pilot, given its turn as a value (src/node/model/piAi.ts makes one from
// pi-ai; a cassette replays one). Programs in other processes join through src/node/eval.

import { CapsuleError } from '../base/errors.js';
import type { ModelExchange } from '../agent/model/cassette.js';
import { recordingTurn } from '../agent/model/cassette.js';
import { ModelBackend } from '../agent/model/modelBackend.js';
import type { ModelTurn } from '../agent/model/modelPort.js';
import { ProviderGate } from '../agent/model/providerGate.js';
import { Pilot } from '../agent/pilot/pilot.js';
import type { EvalAgent, EvalDecision, EvalSeat, SeatedAgent, WallClock } from './evalEpisode.js';

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
  return async (seat) => new SeatedModel(seat, await seat.client(), options);
}

/** Macrotasks the episode yields before it looks for a model turn in flight: a tick's news reaches the model's request in fewer. */
const SETTLE_ROUNDS = 3;

const macrotask: () => Promise<void> =
  typeof globalThis.setImmediate === 'function'
    ? () => new Promise((resolve) => globalThis.setImmediate(resolve))
    : () => new Promise((resolve) => globalThis.setTimeout(resolve, 0));

class SeatedModel implements SeatedAgent {
  failure: SeatedAgent['failure'];
  private readonly pilot: Pilot;
  private readonly backend: ModelBackend;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly decisions: EvalDecision[] = [];
  /** Wall ms of the model turns of the decision in progress. */
  private turnMs = 0;
  /** The pilot's last error: why its turns failed, for the failure's reason. */
  private lastError: string | undefined;

  constructor(seat: EvalSeat, client: Awaited<ReturnType<EvalSeat['client']>>, options: ModelAgentOptions) {
    const now = options.wall?.now ?? (() => globalThis.performance.now());
    const live = options.turnOf(seat);
    const { exchange } = options;
    const recorded =
      exchange === undefined ? live : recordingTurn(live, { character: seat.character, tick: seat.tick, record: (each) => exchange(each, seat.tick()) });
    const { slot } = options;
    const timed: ModelTurn = (request, turnOptions) => {
      let started = now();
      const reply =
        slot === undefined
          ? recorded(request, turnOptions)
          : slot.acquire().then(() => {
              started = now();
              return recorded(request, turnOptions).finally(() => slot.release());
            });
      const tracked = reply.finally(() => {
        this.turnMs += now() - started;
        this.inFlight.delete(tracked);
      });
      this.inFlight.add(tracked);
      tracked.catch(() => undefined);
      return reply;
    };
    const clock = seat.capsule.clock;
    const gate = new ProviderGate({ maxConcurrent: options.maxConcurrent ?? 1, clock });
    // Messages stamped on the world's clock, not the wall's: a replay sends byte-identical requests.
    this.backend = new ModelBackend({
      client,
      turn: timed,
      gate,
      now: () => clock.now(),
      ...(options.systemPrompt !== undefined && { systemPrompt: options.systemPrompt }),
    });
    const brief = seat.episode.brief?.(seat.character) ?? {};
    this.pilot = new Pilot({ client, backend: this.backend, character: { ...brief, id: seat.character }, clock });
    this.pilot.on('cost', (cost) => {
      this.decisions.push({
        character: seat.character,
        ms: this.turnMs,
        inputTokens: cost.inputTokens ?? 0,
        outputTokens: cost.outputTokens ?? 0,
        costUsd: cost.costUsd ?? 0,
      });
      this.turnMs = 0;
    });
    this.pilot.on('stop', ({ reason }) => {
      if (reason !== 'episode over') this.failure ??= { kind: 'disconnected', reason };
    });
    this.pilot.on('error', ({ message }) => {
      this.lastError = message;
    });
    this.pilot.on('pause', ({ reason, message }) => {
      // Turns that kept failing: answers that are not a model's message at all, or the provider's errors.
      if (reason === 'failures') this.failure ??= { kind: this.backend.lastFailure === 'garbage' ? 'garbage' : 'crashed', reason: this.lastError ?? message };
    });
    this.pilot.start();
  }

  settled(): Promise<void> {
    return this.settle();
  }

  private async settle(): Promise<void> {
    for (;;) {
      for (let round = 0; round < SETTLE_ROUNDS; round++) await macrotask();
      if (this.inFlight.size === 0 || this.failure !== undefined) return;
      await Promise.allSettled([...this.inFlight]);
    }
  }

  takeDecisions(): EvalDecision[] {
    return this.decisions.splice(0);
  }

  async close(reason: string): Promise<void> {
    this.pilot.stop(reason === 'episode over' ? reason : `closed: ${reason}`);
    this.backend.close();
  }
}
