// The whole \`event\` message of a broadcast event as one session gets it: the envelope the bridge's
// outbox sends and a replay rebuilds, and the one an in-process agent makes for a listener of whole
// messages (its events cross without one: directWire.ts). One fixed shape, made on the hot path.

import { PROTOCOL, type EventMessage } from './messages.js';
import type { SharedEvent } from './wire.js';

export function eventMessage(sessionId: string, messageId: string, event: SharedEvent): EventMessage {
  return event.meta === undefined
    ? { protocol: PROTOCOL, type: 'event', session_id: sessionId, message_id: messageId, topic: event.topic, payload: event.payload }
    : { protocol: PROTOCOL, type: 'event', session_id: sessionId, message_id: messageId, topic: event.topic, payload: event.payload, meta: event.meta };
}
