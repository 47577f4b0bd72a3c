// The scripted agent of the PixiJS demo: it looks for apples through the capsule's tools alone —
// `in_view`, `nearby`, `can_see`, `move_to`, `say` — walks to the nearest it can see, says so when it
// reaches one (the `collision` the binding sends), and otherwise wanders the orchard.

import type { SeededRandom } from '../../src/adapters/headless/random.js';
import type { Box, NearbyOutput, PositionOutput } from '../../src/adapters/pixi/index.js';
import type { AgentClient } from '../../src/agent/agentClient.js';
import { ScriptedAgent } from '../../src/agent/scripted.js';
import type { EventMessage } from '../../src/protocol/messages.js';

export class Picker extends ScriptedAgent {
  constructor(
    client: AgentClient,
    private readonly random: SeededRandom,
    private readonly area: Box,
  ) {
    super(client);
  }

  protected async decide(news: EventMessage[]): Promise<void> {
    const found = news.find((event) => event.topic === 'collision' && event.payload['phase'] === 'begin');
    if (found !== undefined) {
      const apple = [found.payload['a'], found.payload['b']].find((id) => String(id).startsWith('apple'));
      if (apple !== undefined && this.random.next() < 0.5) await this.call('say', { text: `Found ${String(apple)}!` });
    }
    const me = await this.call<PositionOutput>('position');
    if (!me.ok || me.output.moving) return;
    const near = await this.call<NearbyOutput>('nearby', { kind: 'apple', limit: 3 });
    const apple = near.ok ? near.output.objects.find((seen) => seen.visible && seen.distance > 12) : undefined;
    if (apple !== undefined && this.random.next() < 0.7) {
      await this.call('move_to', { x: apple.x, y: apple.y });
      return;
    }
    const { x, y, width, height } = this.area;
    await this.call('move_to', { x: Math.round(x + 20 + this.random.next() * (width - 40)), y: Math.round(y + 20 + this.random.next() * (height - 40)) });
  }
}
