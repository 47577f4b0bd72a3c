// The DaemonSimulator's options and its scripted "model": what a test gives it per wake, and the
// record it keeps of every turn. The defaults are pi-daemon 0.3.3's.

import type { Clock } from '../../src/base/clock.js';

export interface DaemonSimulatorOptions {
  /** Drives scripted delays, drain timeouts and snapshot times. Default: wall time. */
  clock?: Clock;
  /** Default "sim-host-1"; restart() makes a new one. */
  hostInstanceId?: string;
  /** Default ["1.0", "2.0"], as pi-daemon 0.3.3. */
  supportedProtocolVersions?: string[];
  /** Longest line, in UTF-8 bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /** Requests in flight on one connection (`--max-in-flight-requests-per-connection`). Default 64. */
  maxInFlight?: number;
  /** Wakes waiting behind the running one on a session (`--max-session-queue-depth`). Default 32. */
  maxSessionQueueDepth?: number;
  /** Sessions open at once (`--max-sessions`). Default 128. */
  maxSessions?: number;
  /**
   * The host's `--allow-root` folders: a cwd outside them is cwd_not_allowed. Default: none given,
   * every cwd allowed (the simulator has no file system to check against).
   */
  allowedRoots?: string[];
  /** The model a session opened without one is bound to. Default sim/sim-model. */
  model?: { provider: string; id: string };
  /** The text of a turn when the script has run out. Default "". */
  fallbackReply?: string;
}

/** What a scripted turn sees when it writes its text. */
export interface TurnView {
  sessionId: string;
  generation: number;
  prompt: string;
  /**
   * Messages steered (and followed up) into this turn, in order. A simplification: pi-daemon runs
   * one more model turn per queued message and answers with the last turn's text; here the one
   * scripted turn sees them all and writes the answer.
   */
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
      /** pi's Usage on the assistant message (`{input, output, cacheRead, cacheWrite, totalTokens, cost}`). Default: none. */
      usage?: Record<string, unknown>;
    };

/** A turn that ran (or runs). */
export interface TurnRecord extends TurnView {
  idempotencyKey: string;
  text?: string;
  aborted?: boolean;
  done: boolean;
}
