// Who hears an event: a capsule's sessions indexed by the topics they subscribe to and the
// characters they control, so that emit reaches its listeners without looking at anyone else.
// Built for large populations: a session subscribed to every topic (the default) is indexed once,
// and a character that one session controls (the usual case) is indexed by that session itself.

import { TOPICS } from '../protocol/messages.js';
import type { Session } from './session.js';

/** The subscriptions of a session that declared none: shared, replaced (never changed) when it declares others. */
export const ALL_TOPICS: ReadonlySet<string> = new Set(TOPICS);

export class Audience {
  private readonly byTopic = new Map<string, Set<Session>>();
  /** Sessions subscribed to every topic. */
  private readonly everyTopic = new Set<Session>();
  /** A character's session, or its sessions when several control it (rare: a Set costs more than a session). */
  private readonly byCharacter = new Map<string, Session | Set<Session>>();

  add(session: Session): void {
    const same = this.byCharacter.get(session.character);
    if (same === undefined) this.byCharacter.set(session.character, session);
    else if (same instanceof Set) same.add(session);
    else this.byCharacter.set(session.character, new Set([same, session]));
    this.addTopics(session, session.subscriptions);
  }

  remove(session: Session): void {
    const same = this.byCharacter.get(session.character);
    if (same === session) this.byCharacter.delete(session.character);
    else if (same instanceof Set) {
      same.delete(session);
      if (same.size === 1) this.byCharacter.set(session.character, same.values().next().value!);
    }
    this.removeTopics(session, session.subscriptions);
  }

  /** The session now subscribes to other topics than `before`. */
  resubscribed(session: Session, before: ReadonlySet<string>): void {
    this.removeTopics(session, before);
    this.addTopics(session, session.subscriptions);
  }

  /** Whether anyone subscribes to `topic`: an event nobody hears is not even built. */
  heard(topic: string): boolean {
    return this.everyTopic.size > 0 || (this.byTopic.get(topic)?.size ?? 0) > 0;
  }

  /** The sessions of the characters `to` that subscribe to `topic`, each once. */
  recipients(topic: string, to: string | readonly string[]): Set<Session> {
    const out = new Set<Session>();
    for (const character of typeof to === 'string' ? [to] : to) {
      const sessions = this.byCharacter.get(character);
      if (sessions instanceof Set) {
        for (const session of sessions) if (session.subscriptions.has(topic)) out.add(session);
      } else if (sessions?.subscriptions.has(topic)) out.add(sessions);
    }
    return out;
  }

  private addTopics(session: Session, topics: ReadonlySet<string>): void {
    if (topics === ALL_TOPICS) this.everyTopic.add(session);
    else for (const topic of topics) index(this.byTopic, topic, session);
  }

  private removeTopics(session: Session, topics: ReadonlySet<string>): void {
    if (topics === ALL_TOPICS) this.everyTopic.delete(session);
    else for (const topic of topics) unindex(this.byTopic, topic, session);
  }
}

function index(map: Map<string, Set<Session>>, key: string, session: Session): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(session);
}

function unindex(map: Map<string, Set<Session>>, key: string, session: Session): void {
  const set = map.get(key);
  set?.delete(session);
  if (set?.size === 0) map.delete(key);
}
