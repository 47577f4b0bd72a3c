// What an engine binding sends its capsule every frame — its step, and the events the scene makes —
// once the capsule may be gone. The game owns the capsule and may dispose it before the binding: a
// binding then stops talking to it (it moves its objects still) instead of failing every frame. And
// a game listener that throws on an event the binding emits is the game's error, rethrown on its
// own: the frame goes on (the other events, the capsule's step).

import { CapsuleError } from '../../base/errors.js';
import type { Topic } from '../../protocol/messages.js';
import type { Capsule } from '../../runtime/capsule.js';
import type { EventPayloads } from '../../runtime/events.js';

export class CapsuleCourier {
  /** The capsule was disposed under the binding: nothing more goes to it. */
  gone = false;

  constructor(readonly capsule: Capsule) {}

  /** Steps the capsule by `dtMs`, unless it is gone. */
  step(dtMs: number): void {
    if (this.gone) return;
    try {
      this.capsule.step(dtMs);
    } catch (error) {
      if (!isDisposed(error)) throw error;
      this.gone = true;
    }
  }

  /** Emits an event to `to` (every subscribed session when undefined), unless the capsule is gone. */
  emit<T extends Topic>(topic: T, payload: EventPayloads[T], to?: string[]): void {
    if (this.gone) return;
    try {
      this.capsule.emit(topic, payload, to === undefined ? {} : { to });
    } catch (error) {
      if (isDisposed(error)) {
        this.gone = true;
        return;
      }
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/** Whether `error` says the capsule was disposed. */
export function isDisposed(error: unknown): boolean {
  return error instanceof CapsuleError && error.code === 'AICC_DISPOSED';
}
