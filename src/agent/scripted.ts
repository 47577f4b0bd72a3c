// Scripted agents: small goal- and rule-driven programs that speak AICC through an AgentClient,
// exactly as a remote agent would. They decide when news arrives (a tick), one decision at a time,
// remember what they have seen, and never let a failed decision escape.

import type { AgentClient, CallOutcome } from './agentClient.js';
import type { EventMessage, JsonObject } from '../protocol/messages.js';

/** Most events kept between two decisions; older ones are forgotten first. */
const MAX_NEWS = 256;

/** What an agent remembers: facts by key, each with the tick it was last seen. */
export class Facts {
  private readonly facts = new Map<string, { value: unknown; tick: number }>();

  see(key: string, value: unknown, tick: number): void {
    this.facts.set(key, { value, tick });
  }

  recall<T = unknown>(key: string): T | undefined {
    return this.facts.get(key)?.value as T | undefined;
  }

  forget(key: string): void {
    this.facts.delete(key);
  }

  /** Keys starting with `prefix`, with their values, most recently seen first. */
  all<T = unknown>(prefix: string): Array<[string, T]> {
    return [...this.facts.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort((a, b) => b[1].tick - a[1].tick)
      .map(([key, fact]) => [key, fact.value as T]);
  }
}

/** One rule of a rule-driven agent: the first rule whose `when` holds acts. */
export interface Rule<View> {
  name: string;
  when(view: View): boolean;
  then(view: View): Promise<void>;
}

/**
 * A scripted agent: decides when news arrives, one decision at a time; what it decides is yours.
 *
 * @example
 * class Walker extends ScriptedAgent {
 *   protected async decide(): Promise<void> {
 *     const moved = await this.call('step', { dir: 'east' });
 *     if (!moved.ok) this.done = true;
 *   }
 * }
 * new Walker(await connectInProcess(capsule, { character: 'wren', subscriptions: ['tick'] }));
 */
export abstract class ScriptedAgent {
  readonly memory = new Facts();
  /** The tick of the latest news; 0 before any. */
  tick = 0;
  decisions = 0;
  done = false;
  /** Ticks between decisions when nothing but time has happened. */
  protected pace = 1;
  private news: EventMessage[] = [];
  private busy = false;
  private lastDecision = -Infinity;
  /** Set when a limit said "retry in N ms": no decision before this tick. */
  private restUntil = 0;
  private readonly unsubscribe: () => void;

  constructor(readonly client: AgentClient) {
    this.unsubscribe = client.on('event', (event) => this.receive(event));
  }

  /** One decision from the news since the last one. Errors are the agent's own, reported by `failed`. */
  protected abstract decide(news: EventMessage[]): Promise<void>;

  /** A decision that threw: the agent carries on at its next news. */
  protected failed(error: unknown): void {
    this.memory.see('last_error', String(error), this.tick);
  }

  /**
   * Calls a tool; the outcome is data, as every refusal is. A rate limit's "retry in N ms" is
   * honoured: the agent makes no decision until then.
   */
  protected async call<O = JsonObject>(tool: string, input: JsonObject = {}): Promise<CallOutcome<O>> {
    const outcome = await this.client.call<O>(tool, input);
    if (!outcome.ok && outcome.error.code === 'tool_unavailable' && outcome.error.retryable) {
      const wait = /retry in (\d+) ms/.exec(outcome.error.message);
      const msPerTick = 1000 / this.client.manifest.tick_rate_hz;
      if (wait !== null) this.restUntil = Math.max(this.restUntil, this.tick + Math.ceil(Number(wait[1]) / msPerTick));
    }
    return outcome;
  }

  /** Stops deciding; the session stays open until the client closes it. */
  stop(): void {
    this.done = true;
    this.unsubscribe();
  }

  private receive(event: EventMessage): void {
    if (event.topic === 'tick') {
      const tick = event.payload['tick'];
      if (typeof tick === 'number') this.tick = tick;
      this.wake();
      return;
    }
    this.news.push(event);
    if (this.news.length > MAX_NEWS) this.news.splice(0, this.news.length - MAX_NEWS);
  }

  private wake(): void {
    if (this.busy || this.done || this.tick < this.restUntil) return;
    if (this.news.length === 0 && this.tick - this.lastDecision < this.pace) return;
    this.busy = true;
    this.lastDecision = this.tick;
    const news = this.news;
    this.news = [];
    this.decisions++;
    this.decide(news)
      .catch((error: unknown) => this.failed(error))
      .finally(() => {
        this.busy = false;
      });
  }
}

/** Runs the first rule whose condition holds; false when none did. */
export async function runRules<View>(rules: readonly Rule<View>[], view: View): Promise<string | undefined> {
  for (const rule of rules) {
    if (rule.when(view)) {
      await rule.then(view);
      return rule.name;
    }
  }
  return undefined;
}
