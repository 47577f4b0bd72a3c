// The hostile proxy between a pi client and its simulator (the project's model of an honest peer),
// what both pi-client targets share: hostileAgent.ts speaks pi-peers, hostileHost.ts pi-daemon.
// Each request the client sends takes the next planned fate (proxyFates.ts) and each reconnection
// the next connect fate; between them it sends records nobody asked for. Honest, it passes
// everything as it is. What each protocol names its own way (its ids, its greeting, the records it
// forges and the placeholders they hold) is the subclass's.

import type { FuzzContext } from '../harness/context.js';
import type { Frame } from '../../../src/protocol/codec.js';
import type { Link } from '../../../src/links/link.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { InboundLimits } from '../../../src/protocol/inbound.js';
import { materialize, type RawFrame } from './hostileRawFrames.js';
import { resolve, setPath, stringify, type Quote, type Sym } from './hostileValues.js';
import { TIMEOUT_MS } from './manualTime.js';
import { DIES_AS_IT_ANSWERS, PASS, type ConnectFate, type Fate } from './proxyFates.js';

/** One connection through the proxy: its end towards the client, and towards the simulator. */
export interface Tap {
  client: Link;
  server: Link;
  /** The id of the client's greeting (its hello, its last handshake), once it came. */
  greeting: string | undefined;
  /** Answers still to be shaped, by request id. */
  fates: Map<string, Fate>;
}

/** A simulator: it serves each new link, as a socket would. */
export interface Simulated {
  serve(link: Link): void;
}

/** A request the client sent, as the proxy read it: its id, and the session it names (pi-daemon). */
export interface Request {
  id: string;
  session?: string | undefined;
}

/** The words of a protocol the proxy itself uses. */
export interface ProxyProtocol {
  /** What a Quote stands for (the client's token, or nothing). */
  secret: string;
  /** The greeting a connection starts with ("hello", "handshake"). */
  greeting: string;
  /** An id a placeholder takes when there is none to pick. */
  unknownId: string;
}

/** Something the client sent that it did not ask for: a record (maybe as bytes), or a raw frame. */
export type Unsolicited = { record: Record<string, unknown>; bytes?: boolean } | RawFrame;

export abstract class HostileProxy<S extends Simulated> {
  honest = false;
  readonly fates: Fate[] = [];
  readonly connects: ConnectFate[] = [];
  /** Every reason a link of this proxy was closed with (the client's close reason must be one). */
  readonly closeReasons = new Set<string>();
  protected late: Array<() => void> = [];
  protected tap: Tap | undefined;
  private readonly recent: string[] = [];
  /** Requests not answered yet, with the session each names. */
  protected readonly open = new Map<string, string | undefined>();

  protected constructor(
    readonly sim: S,
    protected readonly context: FuzzContext,
    private readonly clock: ManualClock,
    protected readonly act: () => void,
    readonly limits: InboundLimits,
    private readonly protocol: ProxyProtocol,
  ) {}

  /** Reads a request the client sent: undefined (the problem reported) when the protocol refuses it. */
  protected abstract read(tap: Tap, frame: Frame): Request | undefined;
  /** The request a record from the simulator answers; undefined when it answers none (an event). */
  protected abstract answerId(record: Record<string, unknown>): string | undefined;
  /** One record a `progress` fate sends ahead of the answer. */
  protected abstract progress(type: string, request: Request): Record<string, unknown>;
  /** The true-looking answer a raw frame is built around, `pad` in one of its strings. */
  protected abstract shape(pad: string, self: string | undefined): Record<string, unknown>;
  /** The value of a placeholder of the protocol's own (the base knows this, pending and previous). */
  protected abstract own(sym: Sym, self: string | undefined, session: string | undefined): unknown;

  /** A new connection: the client's end. */
  link(): Link {
    const [clientEnd, proxyEnd] = createMemoryLinkPair();
    const [proxyToServer, serverEnd] = createMemoryLinkPair();
    this.sim.serve(serverEnd);
    const tap: Tap = { client: proxyEnd, server: proxyToServer, greeting: undefined, fates: new Map() };
    proxyEnd.listen({ message: (frame) => this.fromClient(tap, frame), close: (reason) => proxyToServer.close(reason) });
    proxyToServer.listen({
      message: (frame) => this.fromServer(tap, frame),
      close: (reason) => {
        this.closeReasons.add(reason);
        proxyEnd.close(reason);
      },
    });
    this.tap = tap;
    return clientEnd;
  }

  /** What reconnect.connect() does: the next connect fate. */
  connect(): Promise<Link> {
    const next = this.honest ? { kind: 'ok' as const } : (this.connects.shift() ?? { kind: 'ok' as const });
    if (next.kind !== 'ok') this.act();
    switch (next.kind) {
      case 'ok':
        return Promise.resolve(this.link());
      case 'reject':
        return Promise.reject(new Error(String(this.resolve(next.message, undefined))));
      case 'throw':
        throw new TypeError('connect() threw');
      case 'never':
        return new Promise<Link>(() => {});
      case 'late':
        // After the deadline the reconnect loop gives each connect(): the loop must close it.
        return new Promise<Link>((resolve) => this.clock.setTimeout(() => resolve(this.link()), TIMEOUT_MS + 1));
      case 'closed': {
        const link = this.link();
        this.close(this.tap!, `closed before the ${this.protocol.greeting}`);
        return Promise.resolve(link);
      }
      case 'flaky':
        this.fates.unshift(DIES_AS_IT_ANSWERS);
        return Promise.resolve(this.link());
    }
  }

  /** A record (or frame) nobody asked for, on the newest connection. */
  unsolicited(frame: Unsolicited): void {
    const tap = this.tap;
    if (tap === undefined || !tap.client.open) return; // a link that dropped takes nothing: not counted as sent
    this.act();
    if ('record' in frame) this.send(tap, frame.record, undefined, frame.bytes);
    else tap.client.send(this.raw(frame, undefined));
  }

  /** Late answers go out (their requests have timed out by now, or are still waiting). */
  flush(): void {
    const late = this.late;
    this.late = [];
    for (const send of late) send();
  }

  /** Honest from now on, until told otherwise; what was planned is forgotten. */
  calm(): void {
    this.fates.length = 0;
    this.connects.length = 0;
    this.flush();
  }

  /** A new client talks to this proxy (after one whose first greeting was refused). */
  newClient(): void {}

  /** The record in a frame the client sent, or undefined (the problem reported) when it is none. */
  protected parsed(frame: Frame, notText: string, notJson: string): Record<string, unknown> | undefined {
    if (typeof frame !== 'string') return void this.context.problem(notText);
    try {
      return JSON.parse(frame) as Record<string, unknown>;
    } catch {
      return void this.context.problem(notJson);
    }
  }

  private fromClient(tap: Tap, frame: Frame): void {
    const request = this.read(tap, frame);
    if (request === undefined) return;
    const { id } = request;
    this.recent.push(id);
    if (this.recent.length > 16) this.recent.shift();
    this.open.set(id, request.session);
    if (this.open.size > 64) this.open.delete(this.open.keys().next().value!);
    const next = this.honest ? PASS : (this.fates.shift() ?? PASS);
    if (next.kind !== 'pass') this.act();
    switch (next.kind) {
      // The simulator still gets the request (its state stays that of the client's requests: a
      // hello it never saw would make every later answer hello_required); what it answers is not passed on.
      case 'forge':
        this.send(tap, next.record, id);
        break;
      case 'garble':
        tap.client.send(this.raw(next.frame, id));
        break;
      case 'drop':
        if (next.when === 'before') return this.close(tap, next.reason);
        break;
      case 'progress':
        for (let i = 0; i < next.count; i++) this.send(tap, this.progress(next.type, request), id);
        break;
      default:
    }
    tap.fates.set(id, next);
    tap.server.send(frame);
  }

  private fromServer(tap: Tap, frame: Frame): void {
    const record = JSON.parse(frame as string) as Record<string, unknown>;
    const id = this.answerId(record);
    if (id === undefined) return this.unasked(tap, frame, record);
    const next = tap.fates.get(id) ?? PASS;
    tap.fates.delete(id);
    this.open.delete(id);
    switch (next.kind) {
      case 'change':
        for (const { path, value } of next.changes) setPath(record, path, this.resolve(value, id));
        return this.send(tap, record, id);
      case 'twice':
        tap.client.send(frame);
        if (next.change !== undefined) setPath(record, next.change.path, this.resolve(next.change.value, id));
        return this.send(tap, record, id);
      case 'late':
        this.late.push(() => tap.client.send(frame));
        if (this.late.length > 64) this.late.shift();
        return;
      case 'drop':
        if (next.when === 'sent') tap.client.send(frame);
        return this.close(tap, next.reason);
      case 'swallow':
      case 'forge':
      case 'garble':
        return;
      default:
        tap.client.send(frame);
    }
  }

  /** A record from the simulator that answers no request: passed on. */
  protected unasked(tap: Tap, frame: Frame, _record: Record<string, unknown>): void {
    tap.client.send(frame);
  }

  protected close(tap: Tap, reason: string | Quote): void {
    const text = String(this.resolve(reason, undefined));
    this.closeReasons.add(text);
    tap.client.close(text);
    tap.server.close(text);
  }

  protected send(tap: Tap, record: Record<string, unknown>, self: string | undefined, bytes = false): void {
    const text = this.render(record, self);
    tap.client.send(bytes ? new TextEncoder().encode(text) : text);
  }

  /** A record as the client gets it, every placeholder filled in. */
  protected render(record: Record<string, unknown>, self: string | undefined): string {
    return stringify(this.resolve(record, self));
  }

  private raw(frame: RawFrame, self: string | undefined): Frame {
    return materialize(frame, this.limits, this.protocol.secret, (pad) => this.resolve(this.shape(pad, self), self));
  }

  /** `value` with its placeholders filled in: `self` is the request it answers, `session` the session it speaks of. */
  protected resolve(value: unknown, self: string | undefined, session?: string): unknown {
    return resolve(value, (sym) => this.symbol(sym, self, session), this.protocol.secret);
  }

  /** One of `ids`, by the placeholder's number. */
  protected pick(sym: Sym, ids: readonly string[]): string {
    return ids[sym.n % Math.max(1, ids.length)] ?? this.protocol.unknownId;
  }

  private symbol(sym: Sym, self: string | undefined, session: string | undefined): unknown {
    switch (sym.name) {
      case 'this':
        return self ?? this.pick(sym, [...this.open.keys()]);
      case 'pending':
        return this.pick(sym, [...this.open.keys()]);
      case 'previous':
        return this.pick(sym, this.recent);
      default:
        return this.own(sym, self, session);
    }
  }
}
