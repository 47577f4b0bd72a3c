// A text world through the shared perception: rooms apart as the distance.

import { describe, expect, it } from 'vitest';
import { charactersNear } from '../../../src/adapters/text/perception.js';
import { millWorld } from './fixture.js';

describe('charactersNear', () => {
  it('counts exits between rooms: the same room, then one exit, then two; by id among equals; never oneself', () => {
    const world = millWorld();
    const wren = world.character('wren')!;
    const near = (rooms: number) => charactersNear(world, wren, rooms).found.map(({ body, distance }) => [body.id, distance]);
    expect(near(0)).toEqual([['mira', 0]]);
    expect(near(1)).toEqual([
      ['mira', 0],
      ['ada', 1],
      ['tom', 1],
    ]);
    expect(near(2).at(-1)).toEqual(['bo', 2]);
  });

  it('follows a room’s own exits only, and follows the characters as they move', () => {
    const world = millWorld();
    expect(charactersNear(world, world.character('bo')!, 1).found.map(({ body }) => body.id)).toEqual(['ada']);
    world.move('ada', 'east');
    expect(charactersNear(world, world.character('bo')!, 1).found).toEqual([]);
    expect(charactersNear(world, world.character('wren')!, 0).found.map(({ body }) => body.id)).toEqual(['ada', 'mira']);
  });
});
