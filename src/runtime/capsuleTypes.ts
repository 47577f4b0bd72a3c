// What a game holds of a capsule: the Capsule interface (createCapsule in capsule.ts makes one), the
// events it emits and the options of an emit.

import type { Link } from '../links/link.js';
import type { AiccMessage, Capabilities, JsonObject, Meta, TickMode, ToolDescriptor, Topic, World } from '../protocol/messages.js';
import type { CallRecord, HostError } from './calls.js';
import type { Clock } from '../base/clock.js';
import type { DecisionLate } from './decisionBudget.js';
import type { EventPayloads } from './events.js';
import type { ConnectOptions } from './options.js';
import type { AcceptOptions } from './resumeLink.js';
import type { SchemaLiteral } from './schemaType.js';
import type { SessionView } from './sessionTypes.js';
import type { StandardSchemaV1 } from './standardSchema.js';
import type { OutputOf, Returnable, ToolHandle, TypedToolSpec } from './tool.js';

export interface EmitOptions {
  /**
   * Deliver only to the sessions of these characters (still subject to their subscriptions). A
   * function is called only when some session subscribes to the topic: an audience that costs a
   * search is worked out only when someone could hear.
   */
  to?: string | readonly string[] | (() => string | readonly string[]);
  meta?: Meta;
}

/** A call's whole story, and who made it. */
export interface CallEvent extends CallRecord {
  /**
   * 'budget': the capsule made the call itself, a session's decision-budget default action
   * (decisionBudget.ts), whose result went to no agent. Absent: the agent's own call.
   */
  source?: 'budget';
}

export interface SessionChange {
  session: SessionView;
  change: 'open' | 'detached' | 'resumed' | 'closed';
  reason: string;
}

/** Everything the host can listen to with `capsule.on`. */
export type CapsuleEvents = { [T in Topic]: EventPayloads[T] } & {
  session: SessionChange;
  call: CallEvent;
  error: HostError;
  /** A session's decision budget passed with no action from its agent (ConnectOptions.decisionBudget). */
  decision_late: DecisionLate;
  /** Every AICC message a session took in (valid ones) or sent out, in order. */
  message: TappedMessage;
  /** The capsule was disposed (its sessions closed first): the last event it emits. */
  dispose: { reason: string };
};

export interface TappedMessage {
  direction: 'in' | 'out';
  session: SessionView;
  message: AiccMessage;
}

export interface Capsule {
  readonly world: World;
  readonly tickRateHz: number;
  readonly tickMode: TickMode;
  readonly clock: Clock;
  /** Ticks run so far. */
  readonly tick: number;
  /** True once dispose() ran. */
  readonly disposed: boolean;
  /**
   * Adds a tool to the manifest. Its handler is typed by the tool's schemas (a literal written inline,
   * or `as const`) or by its Standard Schema validators (zod, valibot); see ToolDefinition.
   */
  registerTool<
    const IS extends SchemaLiteral = JsonObject,
    const OS extends SchemaLiteral = JsonObject,
    IV extends StandardSchemaV1 | undefined = undefined,
    OV extends StandardSchemaV1 | undefined = undefined,
    const R extends Returnable<OutputOf<OS, OV>> = Returnable<OutputOf<OS, OV>>,
  >(definition: TypedToolSpec<IS, OS, IV, OV, R>): ToolHandle;
  /** The tools the manifest lists now (enabled ones, in registration order); the same array until the catalog changes. */
  tools(): readonly ToolDescriptor[];
  /** Opens a session for an agent on this link; sends session_init at once. */
  connect(link: Link, options: ConnectOptions): SessionView;
  /**
   * Takes a link on which an agent will resume a session (its first message: session_resume). A
   * link with no first message within `firstMessageTimeoutMs` (default 10,000) is closed.
   */
  accept(link: Link, options?: AcceptOptions): void;
  /** Sends a world event to every session subscribed to its topic (or to the `to` characters). */
  emit<T extends Topic>(topic: T, payload: EventPayloads[T], options?: EmitOptions): void;
  on<K extends keyof CapsuleEvents>(type: K, handler: (event: CapsuleEvents[K]) => void): () => void;
  /** Advances time by dtMs: moves a clock that has `advance` (ManualClock), and runs the fixed ticks that fall due. */
  step(dtMs: number): void;
  /** Runs one tick now (how an event-mode world advances on its own triggers). */
  trigger(): void;
  session(id: string): SessionView | undefined;
  /**
   * Replaces an open session's capabilities (a character picks up a key, loses its voice): calls
   * are checked against the new ones from now on, and the agent gets a manifest_update.
   */
  setCapabilities(sessionId: string, capabilities: Partial<Capabilities>): void;
  sessions(): SessionView[];
  /** Closes every session and stops all timers. */
  dispose(reason?: string): void;
}
