// What the inspector has seen of a capsule: the sessions, the last tool calls with their outputs and
// latency (everyone's newest, and each character's own in a ring: callStore.ts), the last events and errors. Filled from the capsule's public events only, kept as short
// strings (peer values are abridged when they arrive, so no large payload is held), and bounded.
// The one thing from outside the capsule: what a chat model's decisions cost, which the host hands
// over from its pilot (the pilot lives on the agent's side, where the capsule cannot see it).

import { clip } from '../base/clip.js';
import { compact } from '../runtime/compact.js';
import type { Capsule, SessionChange, TappedMessage } from '../runtime/capsule.js';
import type { HostError } from '../runtime/calls.js';
import type { SessionView } from '../runtime/sessionTypes.js';
import type { AiccMessage, Topic } from '../protocol/messages.js';
import { CallStore, type CharacterCalls, type HeldCall } from './callStore.js';
import type { CallRow, DecisionShown, EventRow } from './rows.js';
import { ABRIDGE, DETAIL, describeDecision, MAX_DETAIL_CHARS, MAX_NAME_CHARS, MAX_VALUE_CHARS, namesIn } from './describe.js';

export { MAX_DETAIL_CHARS, MAX_NAME_CHARS, MAX_VALUE_CHARS } from './describe.js';

/** World topics listed as events. `tick` is not: it would push everything else out; the header shows it. */
export const LISTED_TOPICS: readonly Exclude<Topic, 'tick'>[] = ['collision', 'audio', 'state_change', 'agent_message'];

export type { CallRow, DecisionShown, EventRow } from './rows.js';

/** The tool of a result whose call the inspector did not see. */
const UNKNOWN_TOOL = '?';

export interface Totals {
  calls: number;
  ok: number;
  errors: number;
  events: number;
  /** Capsule events the inspector failed to record (it never lets such a failure reach the game). */
  failures: number;
}

/** The bounds of what a record keeps. */
export interface RecordBounds {
  /** Calls in the shared list, events, sessions, and characters whose calls are kept. */
  maxRows: number;
  /** Calls kept per character. */
  callsPerCharacter: number;
}

/**
 * Keeps the last `maxRows` calls and events, each character's last `callsPerCharacter` calls (for
 * `maxRows` characters), and up to `maxRows` sessions, and says when it changed.
 */
export class InspectorRecord {
  readonly events: EventRow[] = [];
  /** Sessions seen, in the order they appeared; closed ones are dropped first when over the bound. */
  readonly sessions = new Map<string, SessionView>();
  /** Sessions seen in all, those dropped from `sessions` included. */
  sessionsSeen = 0;
  readonly totals: Totals = { calls: 0, ok: 0, errors: 0, events: 0, failures: 0 };
  /** Calls waiting for their result, by session and call_id (only rows still held). */
  private readonly running = new Map<string, HeldCall[]>();
  private readonly store: CallStore;
  private seq = 0;
  private readonly unsubscribers: Array<() => void> = [];
  private readonly maxRows: number;

  constructor(
    private readonly capsule: Capsule,
    bounds: RecordBounds,
    private readonly now: () => number,
    private readonly changed: () => void,
  ) {
    this.maxRows = bounds.maxRows;
    this.store = new CallStore(bounds.maxRows, bounds.callsPerCharacter, (row) => this.forget(row));
    for (const session of capsule.sessions()) this.addSession(session, true);
    this.unsubscribers.push(
      capsule.on(
        'message',
        this.safely((tapped) => this.message(tapped)),
      ),
      capsule.on(
        'session',
        this.safely((change) => this.session(change)),
      ),
      capsule.on(
        'error',
        this.safely((error) => this.hostError(error)),
      ),
      // Ticks only advance the header and the quota windows.
      capsule.on('tick', () => this.changed()),
      ...LISTED_TOPICS.map((topic) =>
        capsule.on(
          topic,
          this.safely((payload) => this.event(topic, topic, compact(payload, ABRIDGE), namesIn(payload))),
        ),
      ),
    );
  }

  /**
   * These listeners run inside the capsule's emit and message delivery: a throw would reach the
   * game's call or the agent's loop. A value the inspector cannot read (a payload with a throwing
   * getter, say) is counted instead, and the header shows the count.
   */
  private safely<E>(listener: (event: E) => void): (event: E) => void {
    return (event) => {
      try {
        listener(event);
      } catch {
        this.totals.failures++;
        this.changed();
      }
    };
  }

  /** Lists what a decision of `character`'s chat model cost, among the events. */
  readonly decision = this.safely(({ character, cost }: { character: string; cost: DecisionShown }) => {
    const name = clip(character, MAX_NAME_CHARS);
    this.event('decision', 'decision', clip(`${name} ${describeDecision(cost)}`, MAX_VALUE_CHARS), [name]);
  });

  /** The newest calls of every character, oldest first. */
  get calls(): readonly CallRow[] {
    return this.store.recent;
  }

  /** `character`'s own recent calls (a name as shown, clipped), oldest first; undefined when none are kept. */
  callsOf(character: string): CharacterCalls | undefined {
    return this.store.of(character);
  }

  /** The characters whose calls are kept. */
  callers(): IterableIterator<string> {
    return this.store.characters();
  }

  /** Stops listening to the capsule; what was recorded stays readable. */
  stop(): void {
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
  }

  private message({ direction, session, message }: TappedMessage): void {
    if (direction === 'in' && message.type === 'tool_call') this.callArrived(session, message);
    else if (direction === 'out' && message.type === 'tool_result') this.resultLeft(session, message);
    else if (direction === 'out' && message.type === 'error') {
      const character = clip(session.character, MAX_NAME_CHARS);
      this.event('wire_error', message.error.code, `to ${character}: ${clip(message.error.message, MAX_VALUE_CHARS)}`, [character]);
    } else if (direction === 'out' && message.type === 'heartbeat' && message.manifest_update !== undefined) this.changed();
  }

  private callArrived(session: SessionView, call: Extract<AiccMessage, { type: 'tool_call' }>): void {
    const key = callKey(session.id, call.call_id);
    const row = this.addCall(session, key, call.call_id, clip(call.tool, MAX_NAME_CHARS), call.input);
    // A repeated call_id is answered once for both (or from the cache): one result settles them all.
    const waiting = this.running.get(key);
    if (waiting === undefined) this.running.set(key, [row]);
    else waiting.push(row);
    this.changed();
  }

  private addCall(session: SessionView, key: string, callId: string, tool: string, input: unknown): HeldCall {
    const row: HeldCall = {
      key,
      seq: ++this.seq,
      sessionId: session.id,
      character: clip(session.character, MAX_NAME_CHARS),
      tool,
      callId: clip(callId, MAX_NAME_CHARS),
      input: input === undefined ? '' : compact(input, ABRIDGE),
      inputDetail: input === undefined ? '' : compact(input, DETAIL),
      startedAt: this.now(),
      state: 'running',
      version: 0,
      holders: 0,
    };
    this.totals.calls++;
    this.store.add(row);
    return row;
  }

  private resultLeft(session: SessionView, result: Extract<AiccMessage, { type: 'tool_result' }>): void {
    const key = callKey(session.id, result.call_id);
    let rows = this.running.get(key);
    this.running.delete(key);
    if (rows === undefined) {
      // A refused frame never reached the tap as a tool_call, or its row was already dropped:
      // still show the result, without a latency.
      rows = [this.addCall(session, key, result.call_id, UNKNOWN_TOOL, undefined)];
    }
    const now = this.now();
    // One abridged copy for every row the result settles.
    const output = result.output === undefined ? undefined : compact(result.output, DETAIL);
    for (const row of rows) {
      row.state = result.ok ? 'ok' : 'error';
      if (row.tool !== UNKNOWN_TOOL) row.latencyMs = Math.max(0, now - row.startedAt);
      if (output !== undefined) row.output = output;
      if (result.error !== undefined) {
        row.errorCode = result.error.code;
        row.errorMessage = clip(result.error.message, MAX_DETAIL_CHARS);
        row.retryable = result.error.retryable;
      }
      row.version++;
      if (result.ok) this.totals.ok++;
      else this.totals.errors++;
    }
    this.changed();
  }

  private session({ session, change }: SessionChange): void {
    // Counted once, when it opens: a session dropped and heard of again is not a new one.
    this.addSession(session, change === 'open');
    if (change === 'closed') {
      // A closed session answers nothing more: its running calls end here, unanswered.
      for (const [key, rows] of this.running) {
        if (rows[0]!.sessionId !== session.id) continue;
        this.running.delete(key);
        for (const row of rows) {
          row.state = 'unanswered';
          row.version++;
        }
      }
    }
    this.changed();
  }

  private addSession(session: SessionView, opened: boolean): void {
    if (opened && !this.sessions.has(session.id)) this.sessionsSeen++;
    this.sessions.set(session.id, session);
    if (this.sessions.size <= this.maxRows) return;
    let drop: string | undefined;
    for (const [id, seen] of this.sessions) {
      if (seen.state === 'closed') {
        drop = id;
        break;
      }
    }
    this.sessions.delete(drop ?? this.sessions.keys().next().value!);
  }

  private hostError(error: HostError): void {
    const tool = error.tool === undefined ? undefined : clip(error.tool, MAX_NAME_CHARS);
    const character = error.sessionId === undefined ? undefined : this.sessions.get(error.sessionId)?.character;
    const names = character === undefined ? [] : [clip(character, MAX_NAME_CHARS)];
    const where = [...(tool === undefined ? [] : [tool]), ...names].join(' · ');
    this.event('host_error', error.code, clip(`${where === '' ? '' : `${where}: `}${error.message}`, MAX_VALUE_CHARS), names, tool);
  }

  private event(kind: EventRow['kind'], label: string, detail: string, names: readonly string[], tool?: string): void {
    this.totals.events++;
    const row: EventRow = { seq: ++this.seq, tick: this.capsule.tick, kind, label: clip(label, MAX_NAME_CHARS), detail, names };
    this.events.push(tool === undefined ? row : { ...row, tool });
    if (this.events.length > this.maxRows) this.events.shift();
    this.changed();
  }

  /** A call row no list holds no longer waits for its result, so `running` stays within the bound too. */
  private forget(row: HeldCall): void {
    const waiting = this.running.get(row.key);
    if (waiting === undefined) return;
    const left = waiting.filter((other) => other !== row);
    if (left.length === 0) this.running.delete(row.key);
    else this.running.set(row.key, left);
  }
}

function callKey(sessionId: string, callId: string): string {
  return `${sessionId}\n${callId}`;
}
