// An agent under test that is a program of its own (`cmd:COMMAND`): started once per seat, it speaks
// aicc/0.1 as NDJSON on its stdin and stdout (one frame a line), and its character's session is
// opened on that link with the world's session options — every call through the capsule's checks.
//
// An MCP client (`mcp:COMMAND`, mcpAgent.ts) is started the same way, the character served to it as
// an MCP server over the same stdio.
//
// Time: a program acts on wall time, not the world's. After each tick the episode waits until the
// program is waiting for the world — every request it sent unanswered is a call the capsule holds for
// a coming tick — or else has gone quiet, nothing written for `quietMs` of wall time (`answeredMs`
// just after it was answered: it is most likely working out its next call). A program that
// thinks takes no simulated time, as a model does; one that never settles fails as hung after the
// eval's hang deadline. A program that always has a call waiting plays the same episode every time;
// one that only listens is as repeatable as its own timing allows.
//
// Failures: the program exits or its link breaks before the episode ends (crashed, with its exit
// code and the last lines of its stderr), or the capsule closes its session (disconnected).

import { spawn } from 'node:child_process';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { EvalAgent, EvalSeat, SeatedAgent, WallClock } from '../../research/evalEpisode.js';
import { streamLink } from '../socketLink.js';

export interface ProgramAgentOptions {
  /** Wall ms of silence from a program not waiting for a call's answer that count as settled. Default 25. */
  quietMs?: number;
  /**
   * Wall ms of silence that count as settled just after the program was answered: it is most likely
   * working out its next call (an MCP SDK client compiles the tools' schemas after tools/list). Default 100.
   */
  answeredMs?: number;
  /** Bytes of the program's stderr kept for a failure's reason. Default 2,000. */
  maxStderrBytes?: number;
  /** Wall ms between SIGTERM and SIGKILL when the episode is over. Default 2,000. */
  killAfterMs?: number;
  wall?: Pick<WallClock, 'setTimeout' | 'clearTimeout'>;
}

export const PROGRAM_AGENT_DEFAULTS = Object.freeze({ quietMs: 25, answeredMs: 100, maxStderrBytes: 2_000, killAfterMs: 2_000 });

/** Wall ms a lost session waits for the program's exit, which names the failure better. */
const EXIT_GRACE_MS = 500;

/** Which of a program's lines ask the world something, and which of the lines it is sent answer it (NDJSON, one message a line). */
export interface ProgramProtocol {
  isRequest(message: Record<string, unknown>): boolean;
  isAnswer(message: Record<string, unknown>): boolean;
  /** The line that says the program is up (MCP's `initialized`): until then it is starting, not quiet. Absent: up at once. */
  isReady?(message: Record<string, unknown>): boolean;
}

/** aicc/0.1 frames: a tool_call is answered by its tool_result. */
export const AICC_FRAMES: ProgramProtocol = {
  isRequest: (message) => message.type === 'tool_call',
  isAnswer: (message) => message.type === 'tool_result',
};

/** A program started by `command` (run by the shell) for each seat, with AICC_CHARACTER set to the character. */
export function programAgent(command: string, options: ProgramAgentOptions = {}): EvalAgent {
  return async (seat) => startProgram(command, seat, options, AICC_FRAMES, (stdio) => ({ sessionId: seat.join(streamLink(stdio.stdout, stdio.stdin)) }));
}

/** The program's standard streams, as `attach` gets them. */
export interface ProgramStdio {
  stdout: Readable;
  stdin: Writable;
}

/** The character's session, attached to a program's stdio: its id (to hear it close) and what else to close after the program. */
export interface AttachedSession {
  sessionId: string;
  close?(): Promise<void>;
}

/**
 * A program started by `command` for the seat, its character's session attached to its stdio by
 * `attach` (aicc/0.1 frames for cmd:, an MCP server for mcp:).
 */
export function startProgram(
  command: string,
  seat: EvalSeat,
  options: ProgramAgentOptions,
  protocol: ProgramProtocol,
  attach: (stdio: ProgramStdio, fail: (reason: string) => void) => AttachedSession,
): SeatedAgent {
  return new SeatedProgram(command, seat, options, protocol, attach);
}

const systemTimers: Pick<WallClock, 'setTimeout' | 'clearTimeout'> = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

class SeatedProgram implements SeatedAgent {
  failure: SeatedAgent['failure'];
  private readonly child;
  private readonly attached: AttachedSession;
  private readonly offSession: () => void;
  private stderr = '';
  private closing = false;
  /** Requests the program sent that were not answered yet, as its own lines say. */
  private asked = 0;
  /** The character's calls the capsule took in and has not answered yet: held for a coming tick. */
  private held = 0;
  /** Whether the program's last news from the eval was an answer it has not acted on yet. */
  private justAnswered = false;
  private readonly answeredMs: number;
  /** False until the program said it is up (ProgramProtocol.isReady): a program starting is not quiet. */
  private ready: boolean;
  /** What a settle in progress does when the program writes or a count moves. */
  private onChange: (() => void) | undefined;
  private readonly offMessages: () => void;
  private readonly quietMs: number;
  private readonly wall: Pick<WallClock, 'setTimeout' | 'clearTimeout'>;
  private readonly exited: Promise<void>;

  constructor(
    command: string,
    seat: EvalSeat,
    private readonly options: ProgramAgentOptions,
    protocol: ProgramProtocol,
    attach: (stdio: ProgramStdio, fail: (reason: string) => void) => AttachedSession,
  ) {
    this.quietMs = options.quietMs ?? PROGRAM_AGENT_DEFAULTS.quietMs;
    this.answeredMs = Math.max(this.quietMs, options.answeredMs ?? PROGRAM_AGENT_DEFAULTS.answeredMs);
    this.ready = protocol.isReady === undefined;
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
    // What the program is sent passes through a stream of the eval's own, where its answers are counted.
    const toProgram = new PassThrough();
    toProgram.pipe(this.child.stdin);
    // A write after the program left (EPIPE) is reported by its exit.
    this.child.stdin.on('error', () => {});
    this.attached = attach({ stdout: this.child.stdout, stdin: toProgram }, (reason) => this.fail('crashed', reason));
    eachLine(this.child.stdout, (message) => {
      if (protocol.isRequest(message)) this.asked++;
      if (!this.ready && protocol.isReady!(message)) this.ready = true;
    });
    this.child.stdout.on('data', () => {
      this.justAnswered = false;
      this.onChange?.();
    });
    eachLine(toProgram, (message) => {
      if (protocol.isAnswer(message) && this.asked > 0) {
        this.asked--;
        this.justAnswered = true;
        this.onChange?.();
      }
    });
    this.offMessages = seat.capsule.on('message', ({ direction, session, message }) => {
      if (session.id !== this.attached.sessionId) return;
      if (direction === 'in' && message.type === 'tool_call') this.held++;
      else if (direction === 'out' && message.type === 'tool_result' && this.held > 0) this.held--;
      else return;
      this.onChange?.();
    });
    this.offSession = seat.capsule.on('session', ({ session, change, reason }) => {
      if (session.id !== this.attached.sessionId || change === 'resumed' || this.closing) return;
      // A program that exits closes its link first: its exit, if it comes, says more than the link.
      const timer = this.wall.setTimeout(() => this.fail('disconnected', `its session was ${change}: ${reason}`), EXIT_GRACE_MS);
      void this.exited.then(() => this.wall.clearTimeout(timer));
    });
  }

  settled(): Promise<void> {
    return new Promise((resolve) => {
      let quiet: unknown;
      let looking = false;
      const done = (): void => {
        this.wall.clearTimeout(quiet);
        this.onChange = undefined;
        resolve();
      };
      const quietNow = (): void => {
        if (this.ready || this.failure !== undefined) done();
      };
      // Looked at a macrotask later: a call the capsule answers at once (a refusal) is answered by then.
      const look = (): void => {
        if (looking) return;
        looking = true;
        setImmediate(() => {
          looking = false;
          if (this.onChange === change && (this.failure !== undefined || this.waitingForTheWorld())) done();
        });
      };
      const change = (): void => {
        this.wall.clearTimeout(quiet);
        quiet = this.wall.setTimeout(quietNow, this.justAnswered ? this.answeredMs : this.quietMs);
        look();
      };
      this.onChange = change;
      change();
    });
  }

  /** Up, and every request of the program unanswered is a call the capsule holds for a coming tick. */
  private waitingForTheWorld(): boolean {
    return this.ready && this.asked > 0 && this.asked === this.held;
  }

  takeDecisions(): [] {
    return [];
  }

  async close(): Promise<void> {
    this.closing = true;
    this.offSession();
    this.offMessages();
    await this.stop();
    await this.attached.close?.();
  }

  private async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) return;
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    const timer = this.wall.setTimeout(() => this.child.kill('SIGKILL'), this.options.killAfterMs ?? PROGRAM_AGENT_DEFAULTS.killAfterMs);
    await this.exited;
    this.wall.clearTimeout(timer);
  }

  private fail(kind: 'crashed' | 'disconnected', reason: string): void {
    this.failure ??= { kind, reason };
    this.onChange?.();
  }

  private lastWords(): string {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return tail === '' ? '' : `; its stderr ended: ${tail}`;
  }
}

/** Longest line looked at, in bytes: a longer one is not counted (the link refuses it anyway). */
const MAX_LINE_CHARS = 1 << 20;

/** Calls `each` with every line of `stream` that is a JSON object; others are skipped. */
function eachLine(stream: Readable, each: (message: Record<string, unknown>) => void): void {
  let partial = '';
  // A character split across chunks is joined before the line is read.
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer | string) => {
    const lines = (partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
    partial = lines.pop()!;
    if (partial.length > MAX_LINE_CHARS) partial = '';
    for (const line of lines) {
      if (line.length > MAX_LINE_CHARS || !line.startsWith('{')) continue;
      try {
        const message: unknown = JSON.parse(line);
        if (message !== null && typeof message === 'object' && !Array.isArray(message)) each(message as Record<string, unknown>);
      } catch {
        // Not JSON: the link answers it; nothing to count.
      }
    }
  });
}
