// The scripted villager of the Phaser demo: it acts only through the capsule's tools. It looks
// around (`nearby`), walks to the nearest apple in sight (`move_to`; the game lets it eat by walking
// onto one, and it waves — `play_animation` — when it hears it did), greets neighbours and answers
// when spoken to (`say`), plants apples now and then if it is a gardener (`spawn`), and otherwise
// wanders. A walk's end (a `state_change` on its `moving`
// field) or a word addressed to it prompts its next decision at once; other news waits for its
// next look round, about once a second.

import { ScriptedAgent } from '../../src/agent/scripted.js';
import type { AgentClient } from '../../src/agent/agentClient.js';
import type { SeededRandom } from '../../src/adapters/headless/random.js';
import type { MoveOutput, NearbyOutput, PositionOutput } from '../../src/adapters/phaser/index.js';
import type { EventMessage } from '../../src/protocol/messages.js';
import { freeSpot } from './village.js';

/** How far one wander goes at most, px. */
const LEG = 160;
/** Ticks (10 a second) before greeting the same neighbour again. */
const GREET_AGAIN_AFTER = 300;
const GREETINGS = ['Hello, {}!', 'Nice day, {}.', 'Seen any apples, {}?', 'Hi {}!'];
const ANSWERS = ['Hello to you too, {}!', 'Try over by the pond, {}.', 'Good foraging, {}!'];

export class Forager extends ScriptedAgent {
  private walking = false;
  private target: { x: number; y: number } | undefined;
  private readonly greeted = new Map<string, number>();
  private lastSpoke = -Infinity;
  private lastLooked = -Infinity;
  /** Where it stood when last known (the end of its last walk); undefined while walking. */
  private at: { x: number; y: number } | undefined;

  constructor(
    client: AgentClient,
    private readonly id: string,
    private readonly random: SeededRandom,
    private readonly gardener: boolean,
  ) {
    super(client);
    // A decision a second when nothing happens (tool limits allow one nearby a second).
    this.pace = 10;
  }

  protected async decide(news: EventMessage[]): Promise<void> {
    let mine = false;
    let ate = false;
    for (const event of news) {
      if (event.topic === 'state_change' && event.payload['entity'] === this.id && event.payload['field'] === 'moving') {
        // The end of a walk says where it ended: no need to ask for the position.
        this.walking = false;
        this.at = { x: Number(event.payload['x']), y: Number(event.payload['y']) };
        mine = true;
      }
      if (event.topic === 'agent_message' && event.payload['to'] === this.id) mine = true;
      if (event.topic === 'state_change' && event.payload['entity'] === this.id && event.payload['field'] === 'apples') ate = true;
    }
    if (ate) {
      // An apple eaten (the game's Data Manager, forwarded as state_change): a little wave.
      await this.call('play_animation', { key: 'wave' });
      return;
    }
    // Others' news (an apple eaten, a greeting between two others) can wait for the next look round.
    if (!mine && this.tick - this.lastLooked < this.pace) return;
    this.lastLooked = this.tick;
    const addressed = news.find((event) => event.topic === 'agent_message' && event.payload['to'] === this.id);
    if (addressed !== undefined && this.tick - this.lastSpoke > 30) {
      const from = String(addressed.payload['from']);
      await this.say(this.pick(ANSWERS).replace('{}', from), from);
      return;
    }

    // The eight nearest are all a decision uses: a shorter answer is cheaper to make and to check.
    const look = await this.call<NearbyOutput>('nearby', { limit: 8 });
    if (!look.ok) return;
    // One of the two nearest apples in sight: two foragers side by side do not walk as one.
    const apples = look.output.objects.filter((seen) => seen.kind === 'apple' && seen.visible);
    // Still on its way to an apple that is still there: keep going.
    if (this.walking && apples.some((seen) => seen.x === this.target?.x && seen.y === this.target.y)) return;
    const apple = apples[apples.length > 1 && this.random.next() < 0.5 ? 1 : 0];
    if (apple !== undefined) {
      await this.walkTo(apple.x, apple.y);
      return;
    }
    if (this.gardener && this.random.next() < 0.25) {
      const spot = freeSpot(this.random);
      await this.call('spawn', { template: 'apple', x: spot.x, y: spot.y });
      return;
    }
    const neighbour = look.output.objects.find(
      (seen) => seen.role === 'character' && seen.distance < 90 && seen.visible && this.tick - (this.greeted.get(seen.id) ?? -Infinity) > GREET_AGAIN_AFTER,
    );
    if (neighbour !== undefined && this.tick - this.lastSpoke > 50) {
      this.greeted.set(neighbour.id, this.tick);
      await this.say(this.pick(GREETINGS).replace('{}', neighbour.id), neighbour.id);
      return;
    }
    if (!this.walking) {
      if (this.at === undefined) {
        const me = await this.call<PositionOutput>('position');
        if (!me.ok) return;
        this.at = { x: me.output.x, y: me.output.y };
      }
      const spot = freeSpot(this.random);
      const dx = spot.x - this.at.x;
      const dy = spot.y - this.at.y;
      const scale = Math.min(1, LEG / Math.max(1, Math.hypot(dx, dy)));
      await this.walkTo(Math.round(this.at.x + dx * scale), Math.round(this.at.y + dy * scale));
    }
  }

  private async walkTo(x: number, y: number): Promise<void> {
    const moved = await this.call<MoveOutput>('move_to', { x, y });
    this.walking = moved.ok;
    this.target = moved.ok ? { x, y } : undefined;
    // Where it stands now is where the walk starts; it is somewhere on the way until the walk ends.
    this.at = moved.ok ? undefined : this.at;
  }

  private async say(text: string, to: string): Promise<void> {
    const said = await this.call('say', { text, to });
    if (said.ok) this.lastSpoke = this.tick;
  }

  private pick(lines: readonly string[]): string {
    return lines[this.random.int(lines.length)]!;
  }
}
