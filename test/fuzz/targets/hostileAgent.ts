// The hostile pi-peers agent PeersClient talks to: a HostileProxy (hostileProxy.ts) in front of a
// PeersSimulator. It checks every record the client sends (one request its schema takes, the hello
// first, once a link, with the client's token, and no secret after it) and answers in pi-peers: ids
// in `id`, a Quote quoting the token.

import type { FuzzContext } from '../harness/context.js';
import type { Frame } from '../../../src/protocol/codec.js';
import type { ManualClock } from '../../../src/base/clock.js';
import type { InboundLimits } from '../../../src/protocol/inbound.js';
import { validateRequest } from '../../../src/pi/generated/peers-validators.js';
import { isAbortRequest } from '../../../src/pi/peersRecords.js';
import type { PeersSimulator } from '../../pi/peersSimulator.js';
import { seenIn } from './clientChecks.js';
import { HostileProxy, type Request, type Tap } from './hostileProxy.js';
import { Sym } from './hostileValues.js';

export class HostileAgent extends HostileProxy<PeersSimulator> {
  constructor(
    sim: PeersSimulator,
    context: FuzzContext,
    clock: ManualClock,
    act: () => void,
    readonly token: string | undefined,
    limits: InboundLimits,
  ) {
    super(sim, context, clock, act, limits, { secret: token ?? '', greeting: 'hello', unknownId: 'never-asked' });
  }

  protected read(tap: Tap, frame: Frame): Request | undefined {
    const record = this.parsed(frame, 'PeersClient sent a frame that is not text', 'PeersClient sent a record that is not JSON');
    if (record === undefined) return undefined;
    if (!validateRequest(record) && !isAbortRequest(record)) return void this.context.problem('PeersClient sent a record its schema refuses');
    const id = record['id'] as string;
    if (record['type'] === 'hello') {
      if (tap.greeting !== undefined) this.context.problem('PeersClient said hello twice on one link');
      tap.greeting = id;
      if (record['token'] !== this.token) this.context.problem('PeersClient sent a hello without its token, or with another');
    } else {
      if (tap.greeting === undefined) this.context.problem('PeersClient sent a request before its hello');
      seenIn(this.context, record, 'a record PeersClient sent after its hello');
    }
    return { id };
  }

  protected answerId(record: Record<string, unknown>): string {
    return String(record['id']);
  }

  protected progress(type: string, request: Request): Record<string, unknown> {
    return { type, id: request.id };
  }

  protected shape(pad: string, self: string | undefined): Record<string, unknown> {
    return {
      type: 'response',
      id: self ?? new Sym('pending'),
      command: 'get_state',
      success: true,
      data: { id: 'sim-agent', label: pad, host: 'sim-host', cwd: '/sim' },
    };
  }

  protected own(sym: Sym): unknown {
    return sym.name === 'hello' ? (this.tap?.greeting ?? 'no-hello') : undefined;
  }
}
