// The calls a caller makes of PeersClient under fuzz, and what each must settle with: an
// AgentState, a text or null, the success answer to its own id, or a PeersError the docs allow.

import fc from 'fast-check';
import type { DeliverOptions, DeliveryKind } from '../../../src/pi/index.js';
import type { ClientRun } from './clientRun.js';
import { anyNumber, plainText } from './hostileValues.js';
import { TIMEOUT_MS } from './manualTime.js';
import type { PeersSession } from './peersClientSession.js';

export type PeersCall =
  | { kind: 'getState'; wait: { settledAbove: number; holdMs: number } | undefined }
  | { kind: 'lastText' }
  | { kind: 'deliver'; type: DeliveryKind; message: string; hops: number | undefined; awaitsReply: boolean | undefined; id: 'default' | 'explicit' | 'retry' }
  | { kind: 'abort' }
  | { kind: 'wait'; since: number; pollMs: number; holdMs: number; timeoutMs: number }
  /** The caller closes the client. */
  | { kind: 'close' };

export const peersCall: fc.Arbitrary<PeersCall> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .option(
        fc.record({
          settledAbove: fc.oneof(
            fc.nat(4),
            anyNumber.filter((n): n is number => typeof n === 'number'),
          ),
          holdMs: fc.integer({ min: 0, max: 2 * TIMEOUT_MS }),
        }),
        { nil: undefined },
      )
      .map((wait) => ({ kind: 'getState' as const, wait })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'lastText' as const }) },
  {
    weight: 5,
    arbitrary: fc
      .record({
        type: fc.constantFrom<DeliveryKind>('prompt', 'follow_up', 'steer'),
        message: fc.oneof({ weight: 9, arbitrary: plainText }, fc.constant('')),
        hops: fc.option(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.constantFrom(0, -1, 1.5)), { nil: undefined }),
        awaitsReply: fc.option(fc.boolean(), { nil: undefined }),
        id: fc.constantFrom('default' as const, 'explicit' as const, 'retry' as const),
      })
      .map((deliver) => ({ kind: 'deliver' as const, ...deliver })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .record({
        since: fc.integer({ min: -1, max: 1 }),
        pollMs: fc.integer({ min: 1, max: 300 }),
        holdMs: fc.integer({ min: 0, max: 800 }),
        timeoutMs: fc.integer({ min: 1, max: 3 * TIMEOUT_MS }),
      })
      .map((wait) => ({ kind: 'wait' as const, ...wait })),
  },
);

/** Makes the call `spec` of the session's client. */
export function callPeers(run: ClientRun, session: PeersSession, spec: PeersCall): void {
  const { calls, failed } = run;
  const { client } = session;
  switch (spec.kind) {
    case 'getState':
      return calls.track(
        client.getState(spec.wait),
        'getState',
        (state) =>
          typeof state.id === 'string' && typeof state.label === 'string' && typeof state.cwd === 'string' && !Object.hasOwn(state, 'token')
            ? undefined
            : 'getState resolved with data that is not an AgentState',
        failed('getState'),
      );
    case 'lastText':
      return calls.track(
        client.getLastAssistantText(),
        'getLastAssistantText',
        (text) => (text === null || typeof text === 'string' ? undefined : 'getLastAssistantText resolved with neither a string nor null'),
        failed('getLastAssistantText'),
      );
    case 'abort':
      return calls.track(client.abort(), 'abort', () => undefined, failed('abort'));
    case 'deliver': {
      const options: DeliverOptions = {};
      if (spec.id === 'explicit' || (spec.id === 'retry' && session.lastDelivery === undefined)) options.id = client.newDeliveryId();
      if (spec.id === 'retry' && session.lastDelivery !== undefined) options.id = session.lastDelivery;
      if (spec.hops !== undefined) options.hops = spec.hops;
      if (spec.awaitsReply !== undefined) options.awaitsReply = spec.awaitsReply;
      const answer = client.deliver(spec.type, spec.message, options);
      const id = options.id ?? (session.plan.ids === 'default' ? undefined : session.lastId());
      session.lastDelivery = id;
      return calls.track(
        answer,
        'deliver',
        (response) =>
          response.type === 'response' && response.success === true && (id === undefined || response.id === id)
            ? undefined
            : 'deliver resolved with something other than the success answer to its own id',
        failed('deliver', id),
      );
    }
    case 'wait':
      return calls.track(
        client.waitForReply(session.proxy.sim.settled + spec.since, { pollMs: spec.pollMs, holdMs: spec.holdMs, timeoutMs: spec.timeoutMs }),
        'waitForReply',
        (text) => (text === null || typeof text === 'string' ? undefined : 'waitForReply resolved with neither a string nor null'),
        failed('waitForReply'),
      );
    case 'close':
      session.closedByUs = true;
      return client.close();
  }
}
