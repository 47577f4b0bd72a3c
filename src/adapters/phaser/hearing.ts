// Who in a scene hears what: the AICC event each thing that happens in it becomes — a contact, a
// Data Manager change, a walk's end, a line of speech — and the characters it goes to. The plugin
// hooks the scene and sends; this decides, so the rules of docs/PHASER.md ("Who hears what") live in
// one place: those involved and every character within the perception radius, except a walk's end.

import type { Topic } from '../../protocol/messages.js';
import type { EventPayloads } from '../../runtime/events.js';
import type { Contact } from './contacts.js';
import type { DataChange } from './dataChanges.js';
import { positionOf, type Entity, type EntityRegistry } from './entities.js';
import type { StopReason, Walk } from './motion.js';
import { audience } from './perception.js';

/** Sends an event to the characters `to` names (a function: found only if someone is listening). */
export type Send = <T extends Topic>(topic: T, payload: EventPayloads[T], to: string[] | (() => string[])) => void;

export class Hearing {
  constructor(
    private readonly entities: EntityRegistry,
    private readonly radius: number,
    private readonly send: Send,
  ) {}

  /** A contact began or ended: the pair, and everyone in range of where it happened. */
  contact(contact: Contact): void {
    const payload: EventPayloads['collision'] = { a: contact.a, b: contact.b, phase: contact.phase, kind: contact.kind, x: contact.x, y: contact.y };
    this.send('collision', payload, () => audience(this.entities, contact, this.radius, [contact.a, contact.b]));
  }

  /** A registered object's data changed: it, and everyone in range of it. The scene's own data (sceneDataEntity) is everyone's news. */
  data(change: DataChange): void {
    const entity = this.entities.get(change.entity);
    const to = (): string[] =>
      entity === undefined
        ? audience(this.entities, { x: 0, y: 0 }, Number.POSITIVE_INFINITY)
        : audience(this.entities, positionOf(entity), this.radius, [change.entity]);
    this.send('state_change', change as EventPayloads['state_change'], to);
  }

  /**
   * A walk's end is the walker's news only: the late answer to its own move (as a move's result is in
   * the Three.js adapter). Others never heard the walk start; they see movement with `nearby`.
   */
  walkEnded(walk: Walk, reason: StopReason, at: { x: number; y: number }): void {
    // A walk replaced by a newer one is not news: the agent asked for it.
    if (reason === 'replaced') return;
    const payload: EventPayloads['state_change'] = {
      entity: walk.id,
      field: 'moving',
      value: false,
      previous: true,
      reason,
      x: Math.round(at.x),
      y: Math.round(at.y),
    };
    this.send('state_change', payload, [walk.id]);
  }

  /** `speaker` says `text` (to one of them, or to all): every other character in earshot hears it. Returns who did. */
  speech(speaker: Entity, text: string, to?: string): string[] {
    const listeners = audience(this.entities, positionOf(speaker), this.radius).filter((id) => id !== speaker.id);
    const message: EventPayloads['agent_message'] = { from: speaker.id, text };
    if (to !== undefined) message.to = to;
    this.send('agent_message', message, listeners);
    return listeners;
  }
}
