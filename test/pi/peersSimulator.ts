// A pi-peers 1.0 agent endpoint for tests, built from schemas/pi-peers-1.0.schema.json: hello
// first, token, version ranges, dedupe of delivery ids (10 minutes of its clock), the hop limit,
// and an agent whose runs the test finishes by hand. It can be told to fail, hold, drop and to send
// anything at all. The agent state outlives connections: serve() each new link, as a socket would.

import type { Frame } from '../../src/protocol/codec.js';
import type { Link } from '../../src/links/link.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import type { Clock } from '../../src/base/clock.js';
import { validateRequest } from '../../src/pi/generated/peers-validators.js';
import { negotiateVersion, type AgentState, type DeliveryRecord, type HelloRecord, type PeersResponse, type VersionRange } from '../../src/pi/peersProtocol.js';

export interface PeersSimulatorOptions {
  clock: Clock;
  /** Required in hello when set. */
  token?: string;
  /** The agent's range. Default 1.0–1.0. */
  protocol?: VersionRange;
  /** false: accept any hello and only show the range in the answer (a lenient server). Default true. */
  refuseIncompatible?: boolean;
  /** How long a delivery id is remembered. Default 10 minutes. */
  dedupeMs?: number;
  /** Merged into every response and every state: fields a later 1.x might add. */
  extraResponseFields?: Record<string, unknown>;
  extraStateFields?: Record<string, unknown>;
}

type Command = 'hello' | 'get_state' | 'get_last_assistant_text' | 'prompt' | 'follow_up' | 'steer';
const COMMANDS: ReadonlySet<string> = new Set(['hello', 'get_state', 'get_last_assistant_text', 'prompt', 'follow_up', 'steer']);
const DELIVERIES: ReadonlySet<string> = new Set(['prompt', 'follow_up', 'steer']);

export interface ScriptedFailure {
  errorCode: string;
  error?: string;
  retryable?: boolean;
  data?: unknown;
}

/** A request the simulator was told not to answer yet. */
export interface HeldRequest {
  id: string;
  type: string;
  /** Answers it as the simulator would have. */
  answer(): void;
}

interface Connection {
  link: Link;
  helloDone: boolean;
}

export class PeersSimulator {
  idle = true;
  /** Completed runs. */
  settled = 0;
  lastText: string | null = null;
  /** Deliveries that reached the agent (a deduped repeat is not one). */
  readonly deliveries: DeliveryRecord[] = [];
  /** Every record received, as parsed, in order (hellos included). */
  readonly received: Array<Record<string, unknown>> = [];
  readonly receivedFrames: string[] = [];
  readonly held: HeldRequest[] = [];
  private readonly dedupe = new Map<string, { response: PeersResponse; at: number }>();
  private readonly failures: Array<{ command: Command | '*'; failure: ScriptedFailure }> = [];
  private readonly holds: Array<Command | '*'> = [];
  private readonly drops: Array<{ command: Command | '*'; after: boolean }> = [];
  private readonly connections: Connection[] = [];
  private readonly range: VersionRange;

  constructor(private readonly options: PeersSimulatorOptions) {
    this.range = options.protocol ?? { version: '1.0', minVersion: '1.0' };
  }

  /** Serves one more link (a new connection to the same agent). */
  serve(link: Link): void {
    const connection: Connection = { link, helloDone: false };
    this.connections.push(connection);
    link.listen({ message: (frame) => this.receive(connection, frame), close: () => {} });
  }

  /** A fresh memory link pair, served: returns the client's end. */
  link(): Link {
    const [client, server] = createMemoryLinkPair();
    this.serve(server);
    return client;
  }

  /** The model finishes its run: idle again, one more settled run, and its reply. */
  finishRun(text: string | null): void {
    this.idle = true;
    this.settled += 1;
    this.lastText = text;
  }

  /** The next request of `command` ('*': any but hello) is answered with this failure. */
  failNext(command: Command | '*', failure: ScriptedFailure): void {
    this.failures.push({ command, failure });
  }

  /** The next request of `command` is not answered until its HeldRequest says so. */
  holdNext(command: Command | '*'): void {
    this.holds.push(command);
  }

  /** The link drops on the next request of `command`: before it is handled, or after (the answer lost). */
  dropOnNext(command: Command | '*', when: 'before' | 'after' = 'before'): void {
    this.drops.push({ command, after: when === 'after' });
  }

  /** Sends a raw frame on the newest open connection: malformed, oversized, anything. */
  sendFrame(frame: Frame): void {
    this.current().link.send(frame);
  }

  sendRecord(record: Record<string, unknown>): void {
    this.sendFrame(JSON.stringify(record));
  }

  /** Closes the newest connection, as a crash or a network drop would. */
  drop(reason = 'simulated drop'): void {
    this.current().link.close(reason);
  }

  get deliveredCount(): number {
    return this.deliveries.length;
  }

  state(): AgentState & Record<string, unknown> {
    return {
      schemaVersion: '1.0',
      protocol: { ...this.range },
      id: 'sim-agent',
      label: 'simulated agent',
      host: 'sim-host',
      cwd: '/sim',
      pid: 4242,
      runtime: 'linux',
      idle: this.idle,
      settled: this.settled,
      status: this.idle ? 'idle' : 'busy',
      ...this.options.extraStateFields,
    };
  }

  private current(): Connection {
    const open = this.connections.filter((c) => c.link.open);
    const connection = open.at(-1);
    if (connection === undefined) throw new Error('PeersSimulator: no open connection');
    return connection;
  }

  private receive(connection: Connection, frame: Frame): void {
    const text = typeof frame === 'string' ? frame : frame instanceof Uint8Array ? new TextDecoder().decode(frame) : JSON.stringify(frame);
    this.receivedFrames.push(text);
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return this.reply(connection, { id: '', command: 'parse', success: false, errorCode: 'invalid_request', error: 'not JSON' });
    }
    this.received.push(record);
    const id = typeof record['id'] === 'string' ? record['id'] : '';
    const type = typeof record['type'] === 'string' ? record['type'] : '';
    const command = type as Command;
    if (!connection.helloDone && type !== 'hello') {
      return this.reply(connection, { id, command: type, success: false, errorCode: 'hello_required', error: 'the first record must be hello' });
    }
    if (!COMMANDS.has(type))
      return this.reply(connection, { id, command: type, success: false, errorCode: 'unsupported_command', error: `Unknown command: ${type}` });
    if (!validateRequest(record))
      return this.reply(connection, { id, command: type, success: false, errorCode: 'invalid_request', error: 'record does not match the schema' });
    if (type === 'hello') return this.hello(connection, record as unknown as HelloRecord);

    const drop = this.take(this.drops, (d) => d.command === '*' || d.command === command);
    if (drop !== undefined && !drop.after) return connection.link.close('simulated drop');
    const answer = (): void => this.reply(connection, this.handle(id, command, record));
    if (drop !== undefined) {
      this.handle(id, command, record);
      return connection.link.close('simulated drop after handling');
    }
    if (this.take(this.holds, (c) => c === '*' || c === command) !== undefined) {
      this.held.push({ id, type, answer });
      return;
    }
    answer();
  }

  private hello(connection: Connection, hello: HelloRecord): void {
    const base = { id: hello.id, command: 'hello' };
    if (this.options.token !== undefined && hello.token !== this.options.token) {
      this.reply(connection, { ...base, success: false, errorCode: 'auth_failed', error: 'token does not match' });
      return connection.link.close('auth_failed');
    }
    if ((this.options.refuseIncompatible ?? true) && negotiateVersion(this.range, hello.protocol) === undefined) {
      this.reply(connection, { ...base, success: false, errorCode: 'incompatible_version', error: 'no common version', data: { protocol: this.range } });
      return connection.link.close('incompatible_version');
    }
    connection.helloDone = true;
    this.reply(connection, { ...base, success: true, data: { protocol: this.range, id: 'sim-agent', label: 'simulated agent', host: 'sim-host' } });
  }

  /** The answer to one request after hello. Deliveries go through the dedupe cache. */
  private handle(id: string, command: Command, record: Record<string, unknown>): Omit<PeersResponse, 'type'> {
    if (DELIVERIES.has(command)) {
      this.pruneDedupe();
      const seen = this.dedupe.get(id);
      if (seen !== undefined) return seen.response;
    }
    const scripted = this.take(this.failures, (f) => f.command === '*' || f.command === command);
    let response: PeersResponse;
    if (scripted !== undefined) {
      const { errorCode, error, retryable, data } = scripted.failure;
      response = { type: 'response', id, command, success: false, errorCode };
      if (error !== undefined) response.error = error;
      if (retryable !== undefined) response.retryable = retryable;
      if (data !== undefined) response.data = data;
    } else if (command === 'get_state') {
      response = { type: 'response', id, command, success: true, data: this.state() };
    } else if (command === 'get_last_assistant_text') {
      response = { type: 'response', id, command, success: true, data: { text: this.lastText } };
    } else if (typeof record['hops'] === 'number' && record['hops'] > 3) {
      response = { type: 'response', id, command, success: false, errorCode: 'hop_limit', error: 'more than 3 hops', retryable: false };
    } else {
      const disposition = this.idle ? 'started' : 'queued';
      this.deliveries.push(record as unknown as DeliveryRecord);
      if (command === 'prompt') this.idle = false;
      response = { type: 'response', id, command, success: true, data: { disposition } };
    }
    if (DELIVERIES.has(command)) this.dedupe.set(id, { response, at: this.options.clock.now() });
    return response;
  }

  private pruneDedupe(): void {
    const oldest = this.options.clock.now() - (this.options.dedupeMs ?? 10 * 60_000);
    for (const [id, entry] of this.dedupe) if (entry.at <= oldest) this.dedupe.delete(id);
  }

  private reply(connection: Connection, response: Omit<PeersResponse, 'type'>): void {
    connection.link.send(JSON.stringify({ type: 'response', ...response, ...this.options.extraResponseFields }));
  }

  private take<T>(list: T[], match: (item: T) => boolean): T | undefined {
    const index = list.findIndex(match);
    return index < 0 ? undefined : list.splice(index, 1)[0];
  }
}

/** A client end driven by hand, for what a PeersClient never does (skip hello, send junk). */
export class RawPeersClient {
  readonly responses: Array<Record<string, unknown>> = [];
  closedWith: string | undefined;

  constructor(readonly link: Link) {
    link.listen({
      message: (frame) => this.responses.push(JSON.parse(String(frame)) as Record<string, unknown>),
      close: (reason) => (this.closedWith = reason),
    });
  }

  send(record: Record<string, unknown>): void {
    this.link.send(JSON.stringify(record));
  }
}
