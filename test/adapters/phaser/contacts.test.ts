// @vitest-environment jsdom
// Arcade contacts as `collision` events: colliders and overlaps made through the plugin, and the
// world's own collide / overlap events — one `begin` per contact, one `end` when it is over.

import { afterEach, describe, expect, it } from 'vitest';
import { bodyGap, Contacts, type Contact } from '../../../src/adapters/phaser/contacts.js';
import { aiccScenePlugin } from '../../../src/adapters/phaser/index.js';
import type { CapsuleEvents } from '../../../src/runtime/capsule.js';
import { agentFor, collect, makeTexture, play, stage, type Stage } from './harness.js';

let s: Stage;
afterEach(() => s?.destroy());

/** Drives a body at `vx` for `frames` frames, as a walk or the arrow keys do (separation zeroes it). */
async function push(body: Phaser.Physics.Arcade.Sprite, vx: number, frames: number): Promise<void> {
  for (let i = 0; i < frames; i++) {
    body.setVelocityX(vx);
    await play(s, 1);
  }
}

/** Every collision the capsule emitted (what the host and an inspector see). */
function emitted(): Array<CapsuleEvents['collision']> {
  const seen: Array<CapsuleEvents['collision']> = [];
  s.plugin.capsule.on('collision', (event) => seen.push(event));
  return seen;
}

describe('collisions', () => {
  it('a collider’s contact is one begin, then one end once the bodies part; the characters involved hear it', async () => {
    s = await stage();
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const crate = s.scene.physics.add.sprite(140, 100, key).setImmovable(true);
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObject('crate', crate, { kind: 'crate' });
    s.plugin.collider(hero, crate);
    const agent = await agentFor(s.plugin, 'hero');
    const heard = collect(agent, 'collision');
    const all = emitted();
    await push(hero, 120, 30); // pushes against the crate for a while: still one contact
    expect(all).toEqual([{ a: 'crate', b: 'hero', phase: 'begin', kind: 'collide', x: expect.any(Number), y: 100 }]);
    await push(hero, -120, 10);
    expect(all.map((event) => event.phase)).toEqual(['begin', 'end']);
    expect(heard.map((event) => [event.a, event.b, event.phase])).toEqual([
      ['crate', 'hero', 'begin'],
      ['crate', 'hero', 'end'],
    ]);
  });

  it('a walk into a static crate is one contact: Arcade stops the body and it touches again only when the walk re-aims, yet it begins once and ends once', async () => {
    s = await stage({ plugin: { capsuleOptions: { tickMode: 'event' } } });
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const crate = s.scene.physics.add.staticImage(200, 100, key);
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObject('crate', crate, { kind: 'crate' });
    s.plugin.collider(hero, crate);
    s.plugin.registerTools({ only: ['move_to'] });
    const agent = await agentFor(s.plugin, 'hero', { sensors: [], actuators: ['legs'], generators: [] });
    const walks = collect(agent, 'state_change');
    const all = emitted();
    expect((await agent.call('move_to', { x: 300, y: 100 })).ok).toBe(true);
    await play(s, 120); // two seconds against the crate, until the walk gives up
    expect(walks).toEqual([expect.objectContaining({ reason: 'blocked' })]);
    expect(hero.x).toBe(184); // resting against it
    await play(s, 30); // and resting there: still the same contact
    expect(all.map((event) => event.phase)).toEqual(['begin']);
    expect((await agent.call('move_to', { x: 100, y: 100 })).ok).toBe(true);
    await play(s, 60);
    expect(all.map((event) => `${event.a}/${event.b}/${event.phase}`)).toEqual(['crate/hero/begin', 'crate/hero/end']);
  });

  it('an overlap is forwarded with kind overlap, and the game’s own callback still runs', async () => {
    s = await stage();
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const apple = s.scene.physics.add.sprite(130, 100, key);
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObject('apple_1', apple, { kind: 'apple' });
    let calls = 0;
    s.plugin.overlap(hero, apple, () => calls++);
    const all = emitted();
    hero.setVelocityX(60);
    await play(s, 40);
    expect(calls).toBeGreaterThan(5);
    expect(all.filter((event) => event.phase === 'begin')).toEqual([expect.objectContaining({ a: 'apple_1', b: 'hero', kind: 'overlap' })]);
  });

  it('the world’s collide events (bodies with onCollide, colliders the game made) are forwarded too', async () => {
    s = await stage();
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const post = s.scene.physics.add.staticImage(130, 100, key);
    (hero.body as Phaser.Physics.Arcade.Body).onCollide = true;
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObstacle(post, { id: 'post' });
    s.scene.physics.add.collider(hero, post);
    const all = emitted();
    await push(hero, 100, 20);
    expect(all).toEqual([expect.objectContaining({ a: 'hero', b: 'post', phase: 'begin', kind: 'collide' })]);
  });

  it('contacts with objects the plugin does not know are not forwarded', async () => {
    s = await stage();
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const stranger = s.scene.physics.add.sprite(130, 100, key);
    s.plugin.addCharacter('hero', hero);
    s.plugin.overlap(hero, stranger);
    const all = emitted();
    hero.setVelocityX(100);
    await play(s, 20);
    expect(all).toEqual([]);
  });

  it('only characters within the perception radius of a contact hear it', async () => {
    s = await stage({ plugin: { perceptionRadius: 150 } });
    const key = makeTexture(s.scene);
    const a = s.scene.physics.add.sprite(100, 100, key);
    const b = s.scene.physics.add.sprite(130, 100, key);
    s.plugin.addObject('ball', a);
    s.plugin.addObject('bat', b);
    s.plugin.addCharacter('watcher', s.scene.add.sprite(150, 150, key));
    s.plugin.addCharacter('away', s.scene.add.sprite(700, 500, key));
    s.plugin.overlap(a, b);
    const watcher = collect(await agentFor(s.plugin, 'watcher'), 'collision');
    const away = collect(await agentFor(s.plugin, 'away'), 'collision');
    a.setVelocityX(100);
    await play(s, 20);
    expect(watcher.map((event) => event.phase)).toEqual(['begin']);
    expect(away).toEqual([]);
  });

  it('holds at most maxContacts contacts; the rest are counted, not forwarded', async () => {
    s = await stage({ plugin: { maxContacts: 1 } });
    const key = makeTexture(s.scene);
    const hero = s.scene.physics.add.sprite(100, 100, key);
    const one = s.scene.physics.add.sprite(110, 100, key);
    const two = s.scene.physics.add.sprite(100, 110, key);
    s.plugin.addCharacter('hero', hero);
    s.plugin.addObject('one', one);
    s.plugin.addObject('two', two);
    s.plugin.overlap(hero, [one, two]);
    const all = emitted();
    await play(s, 3);
    expect(all).toHaveLength(1);
    expect(s.plugin.counts().droppedContacts).toBeGreaterThan(0);
  });

  it('contactGap is a number from 0 to 64 px; anything else is a CapsuleError naming the option', () => {
    expect(() => aiccScenePlugin({ contactGap: 0 })).not.toThrow();
    expect(() => aiccScenePlugin({ contactGap: 64 })).not.toThrow();
    for (const bad of [-1, 65, Number.NaN, '2'] as unknown as number[]) {
      expect(() => aiccScenePlugin({ contactGap: bad })).toThrow(
        expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringContaining('contactGap must be a number from 0 to 64 (px)') }),
      );
    }
  });

  it('collider() without Arcade physics is a CapsuleError that says how to enable it', async () => {
    s = await stage({ physics: false });
    const box = s.scene.add.rectangle(1, 1, 1, 1);
    expect(() => s.plugin.collider(box, box)).toThrow(
      expect.objectContaining({ code: 'AICC_INVALID_OPTION', message: expect.stringContaining("add physics: { default: 'arcade' }") }),
    );
  });
});

describe('Contacts', () => {
  it('runs every touch and every physics step through measure, news or not', () => {
    const handlers = new Map<string, (...args: unknown[]) => void>();
    const world = { on: (event: string, handler: (...args: unknown[]) => void) => handlers.set(event, handler), off: () => {} };
    const forwarded: Contact[] = [];
    const measured: string[] = [];
    let inside = false;
    const contacts = new Contacts(
      (object) => (object as { id: string }).id,
      (contact) => forwarded.push({ ...contact, a: inside ? contact.a : 'untimed' }),
      2,
      10,
      2,
      (work) => {
        measured.push('work');
        inside = true;
        try {
          work();
        } finally {
          inside = false;
        }
      },
    );
    contacts.attach(world as unknown as Phaser.Physics.Arcade.World);
    const [hero, tree] = [
      { id: 'hero', x: 0, y: 0 },
      { id: 'tree', x: 10, y: 0 },
    ];
    handlers.get('collide')!(hero, tree); // begins
    handlers.get('worldstep')!();
    handlers.get('collide')!(tree, hero); // goes on: no news
    for (let step = 0; step < 3; step++) handlers.get('worldstep')!(); // ends
    expect(forwarded.map((c) => `${c.a}/${c.phase}`)).toEqual(['hero/begin', 'hero/end']);
    expect(measured).toHaveLength(6);
  });
});

describe('Contacts: when a contact ends', () => {
  /** A world stepped by hand and two objects whose 16 px box bodies touch side by side; `apart(px)` opens a gap. */
  function pair(gapPx = 2) {
    const handlers = new Map<string, (...args: unknown[]) => void>();
    const world = { on: (event: string, handler: (...args: unknown[]) => void) => handlers.set(event, handler), off: () => {} };
    const phases: string[] = [];
    const contacts = new Contacts(
      (object) => (object as { id: string }).id,
      (contact) => phases.push(contact.phase),
      3,
      10,
      gapPx,
    );
    contacts.attach(world as unknown as Phaser.Physics.Arcade.World);
    const hero = { id: 'hero', x: 0, y: 0, body: { x: 0, y: 0, width: 16, height: 16 } };
    const crate = { id: 'crate', x: 16, y: 0, body: { x: 16, y: 0, width: 16, height: 16 } };
    return {
      phases,
      touch: () => handlers.get('collide')!(hero, crate),
      step: (n = 1) => {
        for (let i = 0; i < n; i++) handlers.get('worldstep')!();
      },
      apart: (px: number) => void (hero.body.x = -px),
      /** The game removes the hero from the plugin (it stays where it is). */
      unregister: () => void delete (hero as { id?: string }).id,
    };
  }

  it('a body touched only every sixth step but resting against the other stays one contact', () => {
    const p = pair();
    for (let push = 0; push < 20; push++) {
      p.touch();
      p.step(6);
    }
    expect(p.phases).toEqual(['begin']);
  });

  it('ends once untouched for the grace steps and more than the gap apart — not while within it', () => {
    const p = pair();
    p.touch();
    p.apart(2); // within the default 2 px
    p.step(20);
    expect(p.phases).toEqual(['begin']);
    p.apart(2.5);
    p.step(3);
    expect(p.phases).toEqual(['begin', 'end']);
  });

  it('a contact of an object the game unregistered ends after the grace steps, however close it stays', () => {
    const p = pair();
    p.touch();
    p.step(10);
    p.unregister();
    p.step(3);
    expect(p.phases).toEqual(['begin', 'end']);
  });

  it('with contactGap 0 only touching bodies stay in contact', () => {
    const p = pair(0);
    p.touch();
    p.step(10);
    expect(p.phases).toEqual(['begin']);
    p.apart(0.5);
    p.step(3);
    expect(p.phases).toEqual(['begin', 'end']);
  });

  it('measures circles as circles and boxes as boxes; an object without an enabled body is infinitely far', () => {
    const circle = (x: number, y: number) => ({ body: { x: x - 10, y: y - 10, width: 20, height: 20, isCircle: true, radius: 10, center: { x, y } } });
    // Diagonal neighbours: their boxes touch, the circles do not.
    expect(bodyGap(circle(0, 0), circle(20, 20))).toBeCloseTo(Math.hypot(20, 20) - 20);
    expect(bodyGap(circle(0, 0), circle(15, 0))).toBe(0);
    const box = (x: number, y: number) => ({ body: { x, y, width: 10, height: 10 } });
    expect(bodyGap(box(0, 0), box(13, 14))).toBe(5);
    expect(bodyGap(box(0, 0), { body: null })).toBe(Infinity);
    expect(bodyGap(box(0, 0), { body: { ...box(5, 0).body, enable: false } })).toBe(Infinity);
  });
});
