// Runs `pi --mode rpc` as a child and talks to it: commands out on stdin, responses and events in
// on stdout, one JSON record per line. Responses are matched by id (pi runs commands concurrently).
// stdin stays open for the child's whole life: closing it makes pi exit at once, even mid-run.
// With MCP servers to give it (pi 1.x only), pi runs on a private agent dir of its own (makeMcpAgentDir).

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Link } from '../../links/link.js';
import { streamLink } from '../socketLink.js';

export interface PiProcessOptions {
  /** The pi executable (default `pi` on PATH). A .js/.mjs file is run with `node`. */
  piBin?: string;
  /** The Node that runs a .js pi (default: this one). pi 1.x needs Node >= 22.19. */
  node?: string;
  provider?: string;
  model?: string;
  systemPrompt?: string;
  /** PI_CODING_AGENT_DIR, where pi finds models.json and auth (default ~/.pi/agent of the real user). */
  agentDir?: string;
  /** The child's HOME (default: a fresh private folder, removed on close). */
  home?: string;
  /** The child's working directory (default: its HOME). */
  cwd?: string;
  /** The environment pi inherits, minus AICC_* (default process.env). */
  inheritEnv?: NodeJS.ProcessEnv;
  /** More environment for the child, e.g. a provider's API key. */
  env?: Record<string, string>;
  /** How long pi may take to answer its first command (default 30 s). */
  startTimeoutMs?: number;
  /** How long any command may take to be answered (default 30 s; abort gets twice that). */
  requestTimeoutMs?: number;
  /** Longest record accepted from pi, in bytes (default 64 MiB: agent_end carries the whole session). */
  maxLineBytes?: number;
  /**
   * MCP servers whose tools the model calls natively (mcp.json `mcpServers` entries; pi 1.x only).
   * pi then runs on a private agent dir holding these servers only (makeMcpAgentDir), with its
   * built-in MCP extension and no built-in tools; a pi without MCP (0.73) is refused at start.
   */
  mcpServers?: Record<string, object>;
}

export interface RpcResponse {
  id?: string;
  type: 'response';
  command: string;
  success: boolean;
  data?: unknown;
  error?: string;
}

/** An event pi emits: anything that is not a response. */
export type PiEvent = { type: string } & Record<string, unknown>;

/** The flags that keep a hosted pi to a talking character: no tools, files, sessions or extras. */
export const PI_LOCKDOWN_FLAGS = ['--no-session', '--no-extensions', '--no-skills', '--no-prompt-templates', '--no-themes', '--no-context-files', '--no-tools'];
/**
 * The same with MCP tools (pi 1.x, observed in test/e2e/piHostMcp.test.ts): `--no-tools` would hide
 * MCP tools too and `--no-extensions` would unload pi's built-in MCP extension, so pi gets
 * `--no-builtin-tools` (no read/bash/edit/write) and that one extension back by name.
 */
export const PI_MCP_LOCKDOWN_FLAGS = [...PI_LOCKDOWN_FLAGS.filter((flag) => flag !== '--no-tools'), '--no-builtin-tools', '-e', 'builtin:mcp'];

const STDERR_TAIL_BYTES = 4096;

type PiChild = ChildProcessByStdio<Writable, Readable, Readable>;

export class PiProcess {
  private readonly pending = new Map<string, { resolve(response: RpcResponse): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  private readonly eventListeners = new Set<(event: PiEvent) => void>();
  private readonly exitListeners = new Set<(description: string) => void>();
  private nextId = 0;
  private stderrTail = '';
  private exitDescription: string | undefined;
  private readonly exitPromise: Promise<void>;

  private constructor(
    private readonly child: PiChild,
    private readonly link: Link,
    private readonly options: PiProcessOptions,
    private readonly ownedHome: string | undefined,
    readonly cwd: string,
    /** The private agent dir made for mcpServers (removed on close), else undefined. */
    readonly mcpAgentDir: string | undefined,
  ) {
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    this.exitPromise = new Promise((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        this.exited(`pi could not be started (${error.code ?? error.message}); check --pi-bin`);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exited(`pi exited (${signal ?? `code ${code}`})${this.stderrSummary()}`);
        resolve();
      });
    });
    link.listen({
      message: (frame) => this.receive(frame),
      close: () => {},
    });
  }

  /** Spawns pi and resolves once it has answered a first command, so a broken setup fails here. */
  static async start(options: PiProcessOptions = {}): Promise<PiProcess> {
    const ownedHome = options.home === undefined ? mkdtempSync(join(tmpdir(), 'aicc-pi-home-')) : undefined;
    const home = options.home ?? ownedHome!;
    const cwd = options.cwd ?? home;
    let mcpDir: string | undefined;
    try {
      mcpDir = options.mcpServers === undefined ? undefined : makeMcpAgentDir(userAgentDir(options), options.mcpServers);
    } catch (error) {
      if (ownedHome !== undefined) rmSync(ownedHome, { recursive: true, force: true });
      throw error;
    }
    const [command, args] = commandLine(options);
    const child = spawn(command, args, { cwd, env: childEnv(options, home, mcpDir), stdio: ['pipe', 'pipe', 'pipe'] });
    const link = streamLink(child.stdout, child.stdin, { maxLineBytes: options.maxLineBytes ?? 64 * 1024 * 1024 });
    const pi = new PiProcess(child, link, options, ownedHome, cwd, mcpDir);
    try {
      await pi.request({ type: 'get_state' }, options.startTimeoutMs ?? 30_000);
      if (mcpDir !== undefined) await pi.checkMcp();
    } catch (error) {
      await pi.close();
      const hint = mcpDir !== undefined && !/MCP/.test(String(error)) ? ' (MCP servers need pi 1.x, which has MCP built in)' : '';
      throw new Error(`PiProcess.start: ${error instanceof Error ? error.message : String(error)}${hint}`);
    }
    return pi;
  }

  /** pi 0.73 has no MCP (no get_commands either); pi 1.x lists its built-in extension's /mcp. */
  private async checkMcp(): Promise<void> {
    const response = await this.request({ type: 'get_commands' });
    const commands = response.success ? (response.data as { commands?: Array<{ name?: unknown }> } | undefined)?.commands : undefined;
    if (!Array.isArray(commands) || !commands.some((command) => command?.name === 'mcp')) {
      throw new Error(
        'this pi does not serve MCP tools (no built-in MCP extension); give mcpServers to pi 1.x only, or leave them out to use the text protocol',
      );
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why pi is gone, or undefined while it runs. */
  get exit(): string | undefined {
    return this.exitDescription;
  }

  /** Sends a command and resolves with pi's response to it (success or not); rejects if pi is gone or silent. */
  request(command: { type: string } & Record<string, unknown>, timeoutMs?: number): Promise<RpcResponse> {
    if (this.exitDescription !== undefined) return Promise.reject(new Error(this.exitDescription));
    const id = `gw-${++this.nextId}`;
    const limit = timeoutMs ?? (this.options.requestTimeoutMs ?? 30_000) * (command.type === 'abort' ? 2 : 1);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`pi did not answer "${command.type}" within ${limit} ms${this.stderrSummary()}`));
      }, limit);
      this.pending.set(id, { resolve, reject, timer });
      this.link.send(JSON.stringify({ ...command, id }));
    });
  }

  onEvent(listener: (event: PiEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onExit(listener: (description: string) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** Ends pi: closes its stdin (it exits at once), then signals it if it lingers; removes a private HOME. */
  async close(): Promise<void> {
    if (this.exitDescription === undefined) {
      this.link.close('the gateway is closing');
      const escalate = setTimeout(() => this.child.kill('SIGTERM'), 3000);
      const kill = setTimeout(() => this.child.kill('SIGKILL'), 6000);
      await this.exitPromise;
      clearTimeout(escalate);
      clearTimeout(kill);
    }
    this.link.close('pi exited');
    if (this.ownedHome !== undefined) rmSync(this.ownedHome, { recursive: true, force: true });
    if (this.mcpAgentDir !== undefined) rmSync(this.mcpAgentDir, { recursive: true, force: true });
  }

  private receive(frame: unknown): void {
    if (typeof frame !== 'string') return;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(frame) as Record<string, unknown>;
    } catch {
      return; // pi writes only JSON to stdout; a stray line is not ours to act on.
    }
    if (record === null || typeof record !== 'object' || typeof record.type !== 'string') return;
    if (record.type === 'response') {
      const waiter = typeof record.id === 'string' ? this.pending.get(record.id) : undefined;
      if (waiter === undefined) return; // no id (parse/unknown-command errors) or already timed out
      this.pending.delete(record.id as string);
      clearTimeout(waiter.timer);
      waiter.resolve(record as unknown as RpcResponse);
      return;
    }
    if (record.type === 'extension_ui_request') this.declineDialog(record);
    for (const listener of [...this.eventListeners]) listener(record as PiEvent);
  }

  /** Nobody can answer a dialog here; cancelling it keeps pi from waiting forever. */
  private declineDialog(request: Record<string, unknown>): void {
    if (['select', 'confirm', 'input', 'editor'].includes(String(request.method)) && typeof request.id === 'string') {
      this.link.send(JSON.stringify({ type: 'extension_ui_response', id: request.id, cancelled: true }));
    }
  }

  private exited(description: string): void {
    if (this.exitDescription !== undefined) return;
    this.exitDescription = description;
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(description));
      this.pending.delete(id);
    }
    for (const listener of [...this.exitListeners]) listener(description);
  }

  private stderrSummary(): string {
    const lines = this.stderrTail
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '');
    return lines.length === 0 ? '' : `; pi said: ${lines.slice(-3).join(' | ').slice(0, 300)}`;
  }
}

function commandLine(options: PiProcessOptions): [string, string[]] {
  const args = ['--mode', 'rpc'];
  if (options.provider !== undefined) args.push('--provider', options.provider);
  if (options.model !== undefined) args.push('--model', options.model);
  args.push(...(options.mcpServers === undefined ? PI_LOCKDOWN_FLAGS : PI_MCP_LOCKDOWN_FLAGS));
  if (options.systemPrompt !== undefined) args.push('--system-prompt', options.systemPrompt);
  const bin = fromHere(options.piBin ?? 'pi');
  return /\.[cm]?js$/.test(bin) ? [fromHere(options.node ?? process.execPath), [bin, ...args]] : [bin, args];
}

/**
 * A private agent dir for a pi given MCP servers: a fresh folder (0700) with a symlink to every entry
 * of the user's agent dir (models, auth, settings: a token pi refreshes lands in the user's file)
 * but mcp.json, and an mcp.json (0600) of `servers` alone. The user's own MCP servers are left out
 * on purpose: a hosted pi is driven by pages, and the lockdown gives it no tool of the user's. The
 * servers may hold secrets (a bearer header): they live in this file only, never in argv or env.
 */
export function makeMcpAgentDir(userDir: string, servers: Record<string, object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'aicc-pi-agent-'));
  try {
    if (existsSync(userDir)) {
      for (const entry of readdirSync(userDir)) if (entry !== 'mcp.json') symlinkSync(join(userDir, entry), join(dir, entry));
    }
    writeFileSync(join(dir, 'mcp.json'), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PiProcess.start: cannot make pi's private agent dir from ${userDir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return dir;
}

/** The user's agent dir: the option, else ~/.pi/agent of the real user. */
function userAgentDir(options: PiProcessOptions): string {
  return options.agentDir === undefined ? join(homedir(), '.pi', 'agent') : resolve(options.agentDir);
}

/** pi runs in a folder of its own: a relative path means this process's folder. A bare name is looked up on PATH. */
function fromHere(path: string): string {
  return path.includes('/') && !isAbsolute(path) ? resolve(path) : path;
}

/**
 * The child's environment: this process's, minus the gateway's own secrets (AICC_*), plus pi's
 * quiet, offline settings and a private HOME so pi reads and writes nothing of the user's but the
 * agent dir it is pointed at.
 */
function childEnv(options: PiProcessOptions, home: string, mcpAgentDir: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.inheritEnv ?? process.env)) if (!name.startsWith('AICC_')) env[name] = value;
  return {
    ...env,
    ...options.env,
    HOME: home,
    USERPROFILE: home,
    PI_CODING_AGENT_DIR: mcpAgentDir ?? userAgentDir(options),
    PI_OFFLINE: '1',
    PI_TELEMETRY: '0',
    PI_SKIP_VERSION_CHECK: '1',
  };
}
