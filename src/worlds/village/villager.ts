// What every villager agent knows how to do: look and remember the map, find its way, explore,
// and keep track of who and what it has seen. Roles (roles.ts) add goals and rules on top.

import type { LookOutput, Person } from '../../adapters/text/sensors.js';
import type { SeededRandom } from '../../adapters/headless/random.js';
import type { AgentClient } from '../../agent/agentClient.js';
import { ScriptedAgent } from '../../agent/scripted.js';
import type { EventMessage } from '../../protocol/messages.js';

interface Place {
  id: string;
  exits: Map<string, string>;
}

export abstract class Villager extends ScriptedAgent {
  /** Rooms seen, by name, with where their exits lead (by name). */
  protected readonly places = new Map<string, Place>();
  protected here: LookOutput | undefined;

  constructor(
    client: AgentClient,
    readonly id: string,
    protected readonly random: SeededRandom,
  ) {
    super(client);
    // A villager takes a moment between actions: without news, a decision every 0.8 s, which keeps
    // its looks under the 60-a-minute limit.
    this.pace = 8;
  }

  /** Looks around and remembers the room, its exits, its items and the people in it. */
  protected async look(): Promise<LookOutput | undefined> {
    const seen = await this.call<LookOutput>('look');
    if (!seen.ok) return undefined;
    const room = seen.output;
    this.here = room;
    this.places.set(room.name, { id: room.id, exits: new Map(room.exits.map((exit) => [exit.direction, exit.to])) });
    for (const person of room.characters) this.memory.see(`where:${person.id}`, room.name, this.tick);
    for (const item of room.items) this.memory.see(`item:${item.id}`, room.name, this.tick);
    return room;
  }

  protected carrying(word: string): string[] {
    return (this.here?.carrying ?? []).filter((item) => item.name.includes(word)).map((item) => item.id);
  }

  protected present(id: string): Person | undefined {
    return this.here?.characters.find((person) => person.id === id);
  }

  protected go(direction: string) {
    return this.call('go', { direction });
  }

  protected say(text: string, to?: string) {
    return this.call('say', to === undefined ? { text } : { text, to });
  }

  /** The first step towards a known room, by the shortest known way. */
  protected stepTowards(target: string): string | undefined {
    return this.firstStep((name) => name === target);
  }

  /** The first step towards the nearest room not seen yet; ties broken by the agent's own dice. */
  protected stepToExplore(): string | undefined {
    const here = this.here?.name;
    if (here === undefined) return undefined;
    const unseen = [...(this.places.get(here)?.exits ?? [])].filter(([, to]) => !this.places.has(to)).map(([direction]) => direction);
    if (unseen.length > 0) return this.random.pick(unseen);
    return this.firstStep((name) => [...(this.places.get(name)?.exits.values() ?? [])].some((to) => !this.places.has(to)));
  }

  /** Breadth-first over the rooms seen; the direction of the first step on the way. */
  private firstStep(isGoal: (room: string) => boolean): string | undefined {
    const start = this.here?.name;
    if (start === undefined || isGoal(start)) return undefined;
    const firstMove = new Map<string, string>([[start, '']]);
    const queue = [start];
    while (queue.length > 0) {
      const room = queue.shift()!;
      for (const [direction, to] of this.places.get(room)?.exits ?? []) {
        if (firstMove.has(to)) continue;
        const first = room === start ? direction : firstMove.get(room)!;
        if (isGoal(to)) return first;
        firstMove.set(to, first);
        if (this.places.has(to)) queue.push(to);
      }
    }
    return undefined;
  }

  /** Things said to this villager (or to everyone) since the last decision, by speaker. */
  protected spoken(news: EventMessage[]): Array<{ from: string; text: string }> {
    return news
      .filter((event) => event.topic === 'agent_message' && (event.payload['to'] === undefined || event.payload['to'] === this.id))
      .map((event) => ({ from: String(event.payload['from']), text: String(event.payload['text']) }));
  }

  /** Items that came into this villager's hands since the last decision, with who gave them. */
  protected received(news: EventMessage[]): Array<{ item: string; from: string }> {
    return news
      .filter((event) => event.topic === 'state_change' && event.payload['field'] === 'location' && event.payload['value'] === this.id)
      .map((event) => ({ item: String(event.payload['entity']), from: String(event.payload['previous']) }));
  }

  /** Rooms next door where voices were heard since the last decision (by room id). */
  protected voicesFrom(news: EventMessage[]): string[] {
    return news.filter((event) => event.topic === 'audio' && event.payload['sound'] === 'voices').map((event) => String(event.payload['room']));
  }

  /** The name of a room seen before, from its id. */
  protected roomName(id: string): string | undefined {
    for (const [name, place] of this.places) if (place.id === id) return name;
    return undefined;
  }
}
