// A scripted forager agent: an AgentClient in the same process, over a memory link, deciding with a
// ForagerBrain. It does what an LLM-driven agent would do on the wire — hear tick news, `sense`, then
// `move` or `eat` — only its thinking is a few lines of code instead of a model.

import type { AgentClient } from '../../agent/agentClient.js';
import type { ForagerBrain } from './policy.js';
import { SENSE_RADIUS } from './policy.js';
import type { Sensed } from './world.js';

export class ForagerAgent {
  /** state_change events heard: food eaten by a neighbour. */
  heard = 0;
  /** Calls refused or failed; none in a healthy run. */
  failures = 0;

  constructor(
    readonly client: AgentClient,
    readonly brain: ForagerBrain,
  ) {
    client.on('tick', ({ tick, time_ms }) => {
      if (brain.startsDecision(tick, time_ms)) void this.decide();
    });
    client.on('state_change', () => this.heard++);
  }

  /** Observe, then act on what was seen. Both calls run at the capsule's next tick. */
  private async decide(): Promise<void> {
    const sensed = await this.client.call<Sensed>('sense', { radius: SENSE_RADIUS });
    if (!sensed.ok) return this.refused();
    const action = this.brain.choose(sensed.output, sensed.meta.tick ?? 0);
    const acted = await this.client.call(action.tool, action.input);
    if (!acted.ok) this.refused();
  }

  private refused(): void {
    this.failures++;
    this.brain.abandon();
  }
}
