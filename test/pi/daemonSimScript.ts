// The DaemonSimulator's options and its scripted "model": what a test gives it per wake, and the
// record it keeps of every turn.

import type { Clock } from '../../src/runtime/clock.js';

export interface DaemonSimulatorOptions {
  /** Drives scripted delays. Default: wall time. */
  clock?: Clock;
  /** Default "sim-host-1"; restart() makes a new one. */
  hostInstanceId?: string;
  /** Default ["1.0", "2.0"], as pi-daemon 0.3.3. */
  supportedProtocolVersions?: string[];
  /** Longest line, in UTF-8 bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /** steer + followUp messages a running wake holds. Default 8. */
  maxQueuedMessages?: number;
  /** Requests in flight on one connection. Default 16. */
  maxInFlight?: number;
  /** The text of a turn when the script has run out. Default "". */
  fallbackReply?: string;
}

/** What a scripted turn sees when it writes its text. */
export interface TurnView {
  sessionId: string;
  generation: number;
  prompt: string;
  /** Messages steered (and followed up) into this turn, in order. */
  steers: string[];
  followUps: string[];
}

export type ScriptedTurn =
  | string
  | ((turn: TurnView) => string)
  | {
      text: string | ((turn: TurnView) => string);
      /** Finish after this long on the clock. */
      delayMs?: number;
      /** Finish only when the test calls finishTurn(). */
      hold?: boolean;
      /** The text an abort leaves. Default "". */
      partial?: string;
    };

/** A turn that ran (or runs). */
export interface TurnRecord extends TurnView {
  idempotencyKey: string;
  text?: string;
  aborted?: boolean;
  done: boolean;
}
