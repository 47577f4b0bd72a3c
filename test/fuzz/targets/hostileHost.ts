// The hostile pi-daemon host DaemonClient talks to: a HostileProxy (hostileProxy.ts) in front of a
// DaemonSimulator. It checks every line the client sends (one command its schema takes, protocol
// 2.0, request ids r1, r2, … never reused, the handshake first) and answers in pi-daemon: ids in
// `requestId`, placeholders for the host's id and a session's generation and sequence. Events get
// fates of their own: lost, doubled, held back, renumbered, or altered.

import type { FuzzContext } from '../harness/context.js';
import type { Frame } from '../../../src/protocol/codec.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { InboundLimits } from '../../../src/protocol/inbound.js';
import { validateDaemonCommand } from '../../../src/pi/generated/daemon-validators.js';
import type { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { PROBE } from './daemonStage.js';
import type { EventFate } from './hostileDaemonRecords.js';
import { HostileProxy, type Request, type Tap } from './hostileProxy.js';
import { setPath, stringify, Sym } from './hostileValues.js';

export class HostileHost extends HostileProxy<DaemonSimulator> {
  readonly eventFates: EventFate[] = [];
  /** Sessions the client asked to attach (forged events go to them). */
  private readonly attached = new Set<string>([PROBE]);
  private lastRequest = 0;

  constructor(sim: DaemonSimulator, context: FuzzContext, clock: ManualClock, act: () => void, limits: InboundLimits) {
    super(sim, context, clock, act, limits, { secret: '', greeting: 'handshake', unknownId: 'r0' });
  }

  /** A new client talks to this host: its request ids start again at r1. */
  override newClient(): void {
    this.lastRequest = 0;
  }

  override calm(): void {
    this.eventFates.length = 0;
    super.calm();
  }

  protected read(tap: Tap, frame: Frame): Request | undefined {
    const record = this.parsed(frame, 'DaemonClient sent a line that is not text', 'DaemonClient sent a line that is not JSON');
    if (record === undefined) return undefined;
    if (!validateDaemonCommand(record) || record['protocolVersion'] !== '2.0')
      return void this.context.problem('DaemonClient sent a command its schema refuses');
    const id = record['requestId'] as string;
    // Request ids count up for the client's life: never one twice, on any connection.
    const n = /^r(\d+)$/.exec(id)?.[1];
    if (n === undefined || Number(n) <= this.lastRequest) this.context.problem('DaemonClient reused a requestId, or sent one out of its r1, r2, … order');
    this.lastRequest = Math.max(this.lastRequest, Number(n ?? 0));
    if (record['operation'] === 'handshake') tap.greeting = id;
    else if (tap.greeting === undefined) this.context.problem('DaemonClient sent a command before its handshake');
    const sessionId = typeof record['sessionId'] === 'string' ? record['sessionId'] : undefined;
    if (record['operation'] === 'attach' && sessionId !== undefined && this.attached.size < 16) this.attached.add(sessionId);
    return { id, session: sessionId };
  }

  protected answerId(record: Record<string, unknown>): string | undefined {
    return record['kind'] === 'event' ? undefined : String(record['requestId']);
  }

  /** An event from the host: the next event fate, if any. */
  protected override unasked(tap: Tap, frame: Frame, record: Record<string, unknown>): void {
    const next = this.honest ? undefined : this.eventFates.shift();
    if (next === undefined) return tap.client.send(frame);
    this.act();
    switch (next.kind) {
      case 'swallow':
        return;
      case 'twice':
        tap.client.send(frame);
        return tap.client.send(frame);
      case 'late':
        this.late.push(() => tap.client.send(frame));
        return;
      case 'shift':
        record['sequence'] = (record['sequence'] as number) + next.by;
        return this.send(tap, record, undefined);
      case 'change':
        for (const { path, value } of next.changes) setPath(record, path, this.resolve(value, undefined, record['sessionId'] as string));
        return this.send(tap, record, undefined);
      default:
        tap.client.send(frame);
    }
  }

  protected progress(type: string, request: Request): Record<string, unknown> {
    return {
      protocolVersion: '2.0',
      kind: 'event',
      event: type,
      hostInstanceId: new Sym('host'),
      sessionId: request.session ?? new Sym('attached'),
      generation: new Sym('gen', 0),
      sequence: new Sym('seq', 1),
      requestId: request.id,
    };
  }

  protected shape(pad: string, self: string | undefined): Record<string, unknown> {
    return { protocolVersion: '2.0', kind: 'response', requestId: self ?? new Sym('pending'), hostInstanceId: new Sym('host'), ok: true, data: { pad } };
  }

  /** A forged event's numbers are relative to its own session: that is resolved first. */
  protected override render(record: Record<string, unknown>, self: string | undefined): string {
    const session = record['sessionId'] instanceof Sym ? this.resolve(record['sessionId'], self) : record['sessionId'];
    return stringify(this.resolve({ ...record, sessionId: session }, self, typeof session === 'string' ? session : undefined));
  }

  protected own(sym: Sym, self: string | undefined, session: string | undefined): unknown {
    const of = session ?? (self === undefined ? undefined : this.open.get(self)) ?? PROBE;
    switch (sym.name) {
      case 'host':
        return this.sim.hostInstanceId;
      case 'otherHost':
        return `${this.sim.hostInstanceId}-r${sym.n}`;
      case 'attached':
        return this.pick(sym, [...this.attached]);
      case 'gen':
        return (this.sim.session(of)?.generation ?? 1) + sym.n;
      case 'seq':
        return (this.sim.session(of)?.sequence ?? 0) + sym.n;
      default:
        return undefined;
    }
  }
}
