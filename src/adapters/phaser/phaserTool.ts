// What every Phaser tool shares: the scene world the tools act on (the plugin is one), the options a
// game may override, the calling character, and the bounds check.

import type * as Phaser from 'phaser';
import { ToolError } from '../../base/errors.js';
import type { ToolContext } from '../../runtime/tool.js';
import { withOverrides, type ToolOverrides } from '../../runtime/toolOverrides.js';
import { callerIn } from '../shared/caller.js';
import type { Box, Entity, EntityRegistry } from './entities.js';
import type { Walks } from './motion.js';
import type { Bubbles } from './speech.js';

/** What the tools need of a scene; AiccScenePlugin provides it. */
export interface SceneWorld {
  readonly scene: Phaser.Scene;
  readonly entities: EntityRegistry;
  readonly walks: Walks;
  readonly bubbles: Bubbles;
  /** How far characters see and hear, px. */
  readonly perceptionRadius: number;
  /** Where characters may walk and things may be spawned. */
  bounds(): Box;
  /** Makes an object from a template at (x, y) and registers it; throws ToolError when it cannot. */
  spawn(template: string, x: number, y: number): Entity;
  /** Sends `text` from `speaker` as agent_message to the characters in earshot; returns who heard it. */
  hear(speaker: Entity, text: string, to?: string): string[];
}

/** Per-tool overrides of id, limits and capability: the same as every adapter's (ToolOverrides). */
export type PhaserToolOptions = ToolOverrides;

export { withOverrides as withOptions };

/**
 * The character the calling session plays. A session for a character the scene lacks (or has lost:
 * destroyed, or not yet added) is the game's doing, but the agent still gets an answer that says so.
 */
export function caller(world: SceneWorld, context: ToolContext): Entity {
  return callerIn(
    context,
    (id) => {
      const entity = world.entities.get(id);
      return entity?.role === 'character' ? entity : undefined;
    },
    (id) => `you play "${id}", who is not a character in this scene (yet); the game adds characters with addCharacter`,
    true,
  );
}

/** Refuses a point outside the world's bounds, naming them. */
export function checkInside(world: SceneWorld, x: number, y: number): void {
  const b = world.bounds();
  if (x < b.x || y < b.y || x > b.x + b.width || y > b.y + b.height) {
    throw new ToolError(`(${x}, ${y}) is outside the world; x must be within ${b.x}..${b.x + b.width} and y within ${b.y}..${b.y + b.height}`);
  }
}

/** A world coordinate as agents send it. */
export function coordinate(description: string) {
  return { type: 'number', minimum: -100_000, maximum: 100_000, description } as const;
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}
