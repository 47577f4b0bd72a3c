// An agent under test that is a program of its own (`cmd:COMMAND`): started once per seat, it speaks
// aicc/0.1 as NDJSON on its stdin and stdout (one frame a line), and its character's session is
// opened on that link with the world's session options — every call through the capsule's checks.
//
// Time: a program acts on wall time, not the world's. After each tick the episode waits until the
// program has gone quiet — no call of its character for `quietMs` of wall time — so a program that
// thinks takes no simulated time, as a model does; one that never goes quiet fails as hung after the
// eval's hang deadline. Its episodes are as repeatable as the program's own timing allows.
//
// Failures: the program exits or its link breaks before the episode ends (crashed, with its exit
// code and the last lines of its stderr), or the capsule closes its session (disconnected).

import { spawn } from 'node:child_process';
import type { EvalAgent, EvalSeat, SeatedAgent, WallClock } from '../../research/evalEpisode.js';
import { streamLink } from '../socketLink.js';

export interface ProgramAgentOptions {
  /** Wall ms without a call that count as settled. Default 25. */
  quietMs?: number;
  /** Bytes of the program's stderr kept for a failure's reason. Default 2,000. */
  maxStderrBytes?: number;
  /** Wall ms between SIGTERM and SIGKILL when the episode is over. Default 2,000. */
  killAfterMs?: number;
  wall?: Pick<WallClock, 'setTimeout' | 'clearTimeout'>;
}

export const PROGRAM_AGENT_DEFAULTS = Object.freeze({ quietMs: 25, maxStderrBytes: 2_000, killAfterMs: 2_000 });

/** Wall ms a lost session waits for the program's exit, which names the failure better. */
const EXIT_GRACE_MS = 500;

/** A program started by `command` (run by the shell) for each seat, with AICC_CHARACTER set to the character. */
export function programAgent(command: string, options: ProgramAgentOptions = {}): EvalAgent {
  return async (seat) => new SeatedProgram(command, seat, options);
}

const systemTimers: Pick<WallClock, 'setTimeout' | 'clearTimeout'> = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

class SeatedProgram implements SeatedAgent {
  failure: SeatedAgent['failure'];
  private readonly child;
  private readonly offCall: () => void;
  private readonly offSession: () => void;
  private stderr = '';
  private closing = false;
  /** Bumped on each of the character's calls: a quiet wait restarts when it moves. */
  private activity = 0;
  private readonly quietMs: number;
  private readonly wall: Pick<WallClock, 'setTimeout' | 'clearTimeout'>;
  private readonly exited: Promise<void>;

  constructor(
    command: string,
    seat: EvalSeat,
    private readonly options: ProgramAgentOptions,
  ) {
    this.quietMs = options.quietMs ?? PROGRAM_AGENT_DEFAULTS.quietMs;
    this.wall = options.wall ?? systemTimers;
    const maxStderr = options.maxStderrBytes ?? PROGRAM_AGENT_DEFAULTS.maxStderrBytes;
    this.child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, AICC_CHARACTER: seat.character } });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-maxStderr);
    });
    // A program that will not start (no such command) says so as an error event, not an exit.
    this.child.on('error', (error) => this.fail('crashed', `could not run ${JSON.stringify(command)}: ${error.message}`));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (!this.closing) this.fail('crashed', `exited (${signal ?? `code ${code}`}) before the episode ended${this.lastWords()}`);
        resolve();
      });
    });
    const sessionId = seat.join(streamLink(this.child.stdout, this.child.stdin));
    this.offCall = seat.capsule.on('call', (record) => {
      if (record.character === seat.character) this.activity++;
    });
    this.offSession = seat.capsule.on('session', ({ session, change, reason }) => {
      if (session.id !== sessionId || change === 'resumed' || this.closing) return;
      // A program that exits closes its link first: its exit, if it comes, says more than the link.
      const timer = this.wall.setTimeout(() => this.fail('disconnected', `its session was ${change}: ${reason}`), EXIT_GRACE_MS);
      void this.exited.then(() => this.wall.clearTimeout(timer));
    });
  }

  settled(): Promise<void> {
    // Quiet for quietMs since the last call (or since now): the program has done what the tick set off.
    return new Promise((resolve) => {
      const wait = (seen: number): void => {
        this.wall.setTimeout(() => {
          if (this.failure !== undefined || this.activity === seen) resolve();
          else wait(this.activity);
        }, this.quietMs);
      };
      wait(this.activity);
    });
  }

  takeDecisions(): [] {
    return [];
  }

  async close(): Promise<void> {
    this.closing = true;
    this.offCall();
    this.offSession();
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) return;
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    const timer = this.wall.setTimeout(() => this.child.kill('SIGKILL'), this.options.killAfterMs ?? PROGRAM_AGENT_DEFAULTS.killAfterMs);
    await this.exited;
    this.wall.clearTimeout(timer);
  }

  private fail(kind: 'crashed' | 'disconnected', reason: string): void {
    this.failure ??= { kind, reason };
  }

  private lastWords(): string {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return tail === '' ? '' : `; its stderr ended: ${tail}`;
  }
}
