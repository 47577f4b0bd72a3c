// Model mode (`aicc gateway model`): every character a page lends at `/characters/<id>` is driven by
// a model the gateway reaches itself — a Pilot on a ModelBackend per character, all of them through
// one ProviderGate (a concurrency limit, retries with backoff on rate limits and 5xx). The model's
// turn is made on this side (pi-ai, its key from the gateway's environment or pi's credential store):
// pages send their capsule's session and get calls back; no key, prompt or provider error text ever
// goes to them. A page that leaves stops its character's pilot; one that comes back gets a new one.

import type { AgentClient } from '../../agent/agentClient.js';
import { ModelBackend, type ModelBackendOptions } from '../../agent/model/modelBackend.js';
import type { ModelTurn } from '../../agent/model/modelPort.js';
import { ProviderGate, type ProviderGateOptions } from '../../agent/model/providerGate.js';
import type { CharacterBrief } from '../../agent/pilot/briefing.js';
import { Pilot } from '../../agent/pilot/pilot.js';
import type { PilotOptions } from '../../agent/pilot/pilotOptions.js';
import type { DecisionCost } from '../../runtime/decisionCost.js';
import type { CharacterSessions } from './characters.js';

/** The gateway's model: how each lent character is driven. */
export interface ModelTarget {
  kind: 'model';
  /** One model turn (piAiModel(…).turn): the key stays inside it. */
  turn: ModelTurn;
  /** `provider/model`, for the log. */
  name: string;
  /** Shared by every character's requests. Default: maxConcurrent 2, the rest ProviderGate's defaults. */
  gate?: ProviderGateOptions;
  /** Who a lent character is, for the briefing (the page cannot say). Default: its id, and a goal to go about its day. */
  brief?: (character: string) => CharacterBrief;
  /** The ModelBackend's options for each character (budget, steps, system prompt). */
  backend?: Omit<ModelBackendOptions, 'client' | 'turn' | 'gate'>;
  /** The Pilot's options for each character (cadence, guards, notes). */
  pilot?: Omit<PilotOptions, 'client' | 'backend' | 'character'>;
}

/** Requests in flight at once across every character, by default: a cloud provider is not flooded, a local server is not queued deep. */
export const MODEL_GATEWAY_CONCURRENCY = 2;

const DEFAULT_GOAL = 'go about your day in this world: look around, talk to those you meet, and use your tools to do what your character would do';

interface Driven {
  pilot: Pilot;
  backend: ModelBackend;
  decisions: number;
}

export class ModelDrivers {
  private readonly gate: ProviderGate;
  private readonly driven = new Map<string, Driven>();
  private readonly unsubscribe: () => void;

  constructor(
    characters: CharacterSessions,
    private readonly target: ModelTarget,
    private readonly log: (line: string) => void,
  ) {
    this.gate = new ProviderGate({ maxConcurrent: MODEL_GATEWAY_CONCURRENCY, ...target.gate });
    this.unsubscribe = characters.onChange((character, client) =>
      client === undefined ? this.release(character, 'its page left') : this.drive(character, client),
    );
  }

  /** Characters driven now. */
  get size(): number {
    return this.driven.size;
  }

  /** The pilot driving `character`, while its page lends it. */
  pilot(character: string): Pilot | undefined {
    return this.driven.get(character)?.pilot;
  }

  /** Stops every pilot (the gateway is closing). */
  close(reason: string): void {
    this.unsubscribe();
    for (const character of [...this.driven.keys()]) this.release(character, reason);
  }

  private drive(character: string, client: AgentClient): void {
    this.release(character, 'its page lent it again');
    const backend = new ModelBackend({ ...this.target.backend, client, turn: this.target.turn, gate: this.gate });
    const brief = this.target.brief?.(character) ?? { id: character, name: character, goal: DEFAULT_GOAL };
    const pilot = new Pilot({ ...this.target.pilot, client, backend, character: { ...brief, id: character } });
    const driven: Driven = { pilot, backend, decisions: 0 };
    this.driven.set(character, driven);
    pilot.on('cost', (cost) => {
      driven.decisions++;
      this.log(`aicc gateway: ${character}: decision ${driven.decisions} ${costLine(cost)}`);
    });
    // The pilot's own words (a pause, a backend failure): they name no key (pi-ai's errors are scrubbed in piAi.ts).
    pilot.on('pause', ({ reason, message }) => this.log(`aicc gateway: ${character}: paused (${reason}): ${message}`));
    pilot.on('stop', ({ reason }) => {
      if (this.driven.get(character) === driven) this.driven.delete(character);
      backend.close();
      this.log(`aicc gateway: ${character}: the model stopped driving it (${reason}) after ${driven.decisions} decisions`);
    });
    pilot.start();
    this.log(`aicc gateway: ${character} is lent; ${this.target.name} drives it`);
  }

  private release(character: string, reason: string): void {
    const driven = this.driven.get(character);
    if (driven === undefined) return;
    this.driven.delete(character);
    driven.pilot.stop(reason);
    driven.backend.close();
  }
}

/** `replied, 2 calls, 1.4 s, 812 tokens in (640 cached), 31 out` — what a decision did and cost. */
function costLine(cost: DecisionCost): string {
  const parts = [cost.ended, `${cost.calls} call${cost.calls === 1 ? '' : 's'}`];
  parts.push(`${(cost.totalMs / 1000).toFixed(1)} s`);
  if (cost.retries !== undefined) parts.push(`${cost.retries} retried`);
  if (cost.inputTokens !== undefined) parts.push(`${cost.inputTokens} tokens in${cost.cachedInputTokens ? ` (${cost.cachedInputTokens} cached)` : ''}`);
  if (cost.outputTokens !== undefined) parts.push(`${cost.outputTokens} out`);
  return parts.join(', ');
}
