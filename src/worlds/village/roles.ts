// The three villagers and their goals.
// Ada, the baker, wants two apples for a pie and pays in bread.
// Bram, the farmer, gathers the orchard's apples and trades them at the market for bread.
// Cleo, the bard, wanders to every room, greets whoever she meets, follows voices, writes about
// what she sees, and ends with a ballad left in the square.

import type { EventMessage } from '../../protocol/messages.js';
import { Villager } from './villager.js';

export class Baker extends Villager {
  private readonly owed: string[] = [];
  private askedAt = -Infinity;

  protected async decide(news: EventMessage[]): Promise<void> {
    for (const gift of this.received(news)) if (gift.item.includes('apple') && gift.from !== 'orchard') this.owed.push(gift.from);
    const room = await this.look();
    if (room === undefined) return;
    const apples = this.carrying('apple');
    const creditor = this.owed.find((id) => this.present(id) !== undefined);
    if (creditor !== undefined) {
      const loaf = this.carrying('loaf')[0];
      this.owed.splice(this.owed.indexOf(creditor), 1);
      if (loaf !== undefined) await this.call('give', { item: loaf, to: creditor });
      return;
    }
    if (apples.length >= 2) return this.bake();
    const bram = this.present('bram');
    if (bram !== undefined && this.tick - this.askedAt > 30) {
      this.askedAt = this.tick;
      await this.say('Bram, a fresh loaf for one of your apples?', 'bram');
      return;
    }
    // The orchard's apples are Bram's to sell: find him, by what she has seen or by his voice.
    const voices = this.voicesFrom(news)
      .map((id) => this.roomName(id))
      .find((name) => name !== undefined);
    if (voices !== undefined) this.memory.see('where:bram', voices, this.tick);
    const bramAt = this.memory.recall<string>('where:bram');
    if (bramAt === room.name) this.memory.forget('where:bram'); // he has moved on
    // Nowhere left to look: farmers sell at the market, so wait for him there.
    const direction =
      (bramAt !== undefined && bramAt !== room.name ? this.stepTowards(bramAt) : undefined) ?? this.stepToExplore() ?? this.stepTowards('Market');
    if (direction !== undefined) await this.go(direction);
  }

  private async bake(): Promise<void> {
    if (this.here?.id !== 'bakery') {
      const direction = this.stepTowards('Bakery');
      if (direction !== undefined) await this.go(direction);
      return;
    }
    await this.call('compose', { kind: 'note', subject: 'here', remark: 'Apple pie: two apples, a hot oven, and patience.' });
    await this.say('The apple pie is in the oven! Come round, everyone.');
    this.stop();
  }
}

export class Farmer extends Villager {
  private readonly promised: string[] = [];
  private criedAt = -Infinity;
  private soldAt = -Infinity;

  protected async decide(news: EventMessage[]): Promise<void> {
    for (const request of this.spoken(news)) if (/apple/i.test(request.text) && !this.promised.includes(request.from)) this.promised.push(request.from);
    const thanks = this.received(news).find((gift) => gift.item.includes('loaf'));
    const room = await this.look();
    if (room === undefined) return;
    if (thanks !== undefined && this.present(thanks.from) !== undefined) {
      await this.say(`Thank you kindly, that smells wonderful.`, thanks.from);
      return;
    }
    const apples = this.carrying('apple');
    const buyer = this.promised.find((id) => this.present(id) !== undefined);
    if (buyer !== undefined && apples[0] !== undefined) {
      this.promised.splice(this.promised.indexOf(buyer), 1);
      await this.call('give', { item: apples[0], to: buyer });
      this.soldAt = this.tick;
      return;
    }
    const ripe = room.items.find((item) => item.name.includes('apple'));
    if (ripe !== undefined) {
      await this.call('take', { item: ripe.id });
      return;
    }
    // Sold out, or paid and no buyer for a good while: the day's trade is done.
    if (this.carrying('loaf').length > 0 && (apples.length === 0 || this.tick - this.soldAt > 100)) return this.rest();
    // With apples, sell them at the market; without, find the orchard.
    const goal = apples.length > 0 && this.memory.recall('harvested') ? 'Market' : 'Orchard';
    if (room.name === 'Orchard') this.memory.see('harvested', true, this.tick);
    if (room.name === goal) {
      if (goal === 'Market' && this.tick - this.criedAt > 40) {
        this.criedAt = this.tick;
        await this.say('Apples! Fresh apples from the orchard!');
      }
      return;
    }
    const direction = (this.places.has(goal) ? this.stepTowards(goal) : undefined) ?? this.stepToExplore();
    if (direction !== undefined) await this.go(direction);
  }

  private async rest(): Promise<void> {
    if (this.here?.name === 'Tavern') {
      await this.say('A good day of trade. Time for a rest.');
      this.stop();
      return;
    }
    const direction = this.stepTowards('Tavern') ?? this.stepToExplore();
    if (direction !== undefined) await this.go(direction);
  }
}

export class Bard extends Villager {
  private readonly greeted = new Set<string>();
  private readonly written = new Set<string>();
  private followed: string | undefined;

  protected async decide(news: EventMessage[]): Promise<void> {
    const voices = this.voicesFrom(news);
    const room = await this.look();
    if (room === undefined) return;
    if (voices.length > 0 && this.followed === undefined) this.followed = this.roomName(voices[0]!);
    const stranger = room.characters.find((person) => !this.greeted.has(person.id));
    if (stranger !== undefined) {
      this.greeted.add(stranger.id);
      await this.say(`Good day, ${stranger.name}! Any news for a song?`, stranger.id);
      return;
    }
    if (room.items.some((item) => item.id === 'lute')) {
      await this.call('take', { item: 'lute' });
      return;
    }
    if (!this.written.has(room.name) && this.written.size < 4) {
      this.written.add(room.name);
      await this.call('compose', { kind: 'description', subject: 'here' });
      return;
    }
    if (this.places.size === 8) return this.ballad(); // every room seen
    if (this.followed !== undefined && this.followed !== room.name) {
      const direction = this.stepTowards(this.followed);
      if (direction !== undefined) {
        await this.go(direction);
        return;
      }
    }
    this.followed = undefined;
    const direction = this.stepToExplore();
    if (direction !== undefined) await this.go(direction);
  }

  private async ballad(): Promise<void> {
    if (this.here?.name !== 'Village Square') {
      const direction = this.stepTowards('Village Square');
      if (direction !== undefined) await this.go(direction);
      return;
    }
    const note = await this.call<{ note?: { id: string } }>('compose', { kind: 'note', subject: 'here', remark: 'The Ballad of Millbrook, in eight rooms.' });
    if (note.ok && note.output.note !== undefined) await this.call('drop', { item: note.output.note.id });
    await this.say('Gather round: a ballad for Millbrook!');
    this.stop();
  }
}

/**
 * A villager with no plan: it walks a random exit each time it decides and picks up whatever it
 * finds (or tries to). The village offers it as a second scripted agent for an eval (`policy:wanderer`), a floor
 * any agent that reads its goal should clear.
 */
export class Wanderer extends Villager {
  protected async decide(): Promise<void> {
    const room = await this.look();
    if (room === undefined) return;
    // Anything, the millstone too: the world refuses what cannot be carried, and that is counted.
    const thing = room.items[0];
    if (thing !== undefined && this.random.next() < 0.5) {
      await this.call('take', { item: thing.id });
      return;
    }
    const exits = room.exits.map((exit) => exit.direction);
    if (exits.length > 0) await this.go(this.random.pick(exits));
  }
}
