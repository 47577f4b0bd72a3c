// The scripted agent of the Three.js demo: it wanders the meadow through the capsule's tools alone
// — `position`, `look_ahead`, `nearby`, `in_view`, `move_to`, `turn_to` — and turns away from
// whatever it bumps into (the `collision` events the binding sends).

import { ScriptedAgent } from '../../src/agent/scripted.js';
import type { AgentClient } from '../../src/agent/agentClient.js';
import type { SeededRandom } from '../../src/adapters/headless/random.js';
import type { Area, NearbyOutput, PositionOutput, Seen, LookAheadOutput, InViewOutput } from '../../src/adapters/three/index.js';
import type { EventMessage } from '../../src/protocol/messages.js';

/** How far one leg of a walk goes at most, in scene units. */
const LEG = 8;

export class Wanderer extends ScriptedAgent {
  constructor(
    client: AgentClient,
    private readonly random: SeededRandom,
    private readonly area: Area,
  ) {
    super(client);
  }

  protected async decide(news: EventMessage[]): Promise<void> {
    const me = await this.call<PositionOutput>('position');
    if (!me.ok) return;
    const { position, heading } = me.output;
    const bumped = news.some((event) => event.topic === 'collision' && event.payload['phase'] === 'begin');
    if (bumped) {
      // Step back from the nearest thing touched: the opposite of its bearing.
      const near = await this.call<NearbyOutput>('nearby', { radius: 0.3 });
      const nearest: Seen | undefined = near.ok ? near.output.objects[0] : undefined;
      const away = heading + (nearest === undefined ? 180 : nearest.bearing + 180);
      await this.walk(position.x, position.z, away, 2 + this.random.next() * 2);
      return;
    }
    const ahead = await this.call<LookAheadOutput>('look_ahead', { range: 2.5 });
    if (ahead.ok && !ahead.output.clear) {
      await this.call('turn_to', { heading: wrap(heading + 90 + this.random.next() * 180) });
      return;
    }
    // Now and then, walk toward someone in view; otherwise somewhere new.
    if (this.random.next() < 0.3) {
      const view = await this.call<InViewOutput>('in_view', { kind: 'villager' });
      const other = view.ok ? view.output.objects[0] : undefined;
      if (other !== undefined && other.distance > 2) {
        await this.walk(position.x, position.z, heading + other.bearing, Math.min(LEG, other.distance - 1.5));
        return;
      }
    }
    await this.walk(position.x, position.z, this.random.next() * 360 - 180, 2 + this.random.next() * (LEG - 2));
  }

  /** A leg of `length` from (x, z) along `headingDeg`, kept inside the area. */
  private async walk(x: number, z: number, headingDeg: number, length: number): Promise<void> {
    const h = (headingDeg * Math.PI) / 180;
    const to = { x: clamp(x + Math.sin(h) * length, this.area.minX, this.area.maxX), z: clamp(z + Math.cos(h) * length, this.area.minZ, this.area.maxZ) };
    await this.call('move_to', { x: round(to.x), z: round(to.z) });
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Degrees into [-180, 180], as turn_to's schema wants. */
function wrap(degrees: number): number {
  return ((((degrees + 180) % 360) + 360) % 360) - 180;
}
