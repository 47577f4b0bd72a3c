// The calls a caller makes of DaemonClient under fuzz, on the batch sessions at their generation,
// the next one or any other, and what each must settle with: the data the operation promises (its
// numbers in 0..2^53 − 1, a wake's own idempotencyKey and text), or a DaemonError the docs allow.

import fc from 'fast-check';
import type { SessionRef } from '../../../src/pi/index.js';
import type { ClientRun } from './clientRun.js';
import type { DaemonSession } from './daemonClientSession.js';
import { OPEN, PROBE, SESSIONS } from './daemonStage.js';
import { plainText } from './hostileValues.js';
import { TIMEOUT_MS } from './manualTime.js';

/** A session and its generation: the one it is at, the next, or a number. */
type Ref = { session: string; generation: 'current' | 'next' | number };

export type DaemonCall =
  | { kind: 'handshake' }
  | { kind: 'open'; ref: Ref; mode: 'memory' | 'new'; systemPrompt: string | undefined }
  | { kind: 'attach' | 'detach' | 'abort'; ref: Ref }
  | { kind: 'wake'; ref: Ref; prompt: string; key: 'default' | 'explicit' | 'reuse'; waitForTerminal: boolean | undefined }
  | { kind: 'steer' | 'followUp'; ref: Ref; message: string; key: 'default' | 'explicit' | 'reuse' }
  | { kind: 'status'; session: string | undefined }
  | { kind: 'close'; ref: Ref; retain: boolean | undefined }
  | { kind: 'drain' };

const ref: fc.Arbitrary<Ref> = fc.record({
  session: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...SESSIONS) }, fc.constantFrom('', 'x'.repeat(513))),
  generation: fc.oneof(
    { weight: 6, arbitrary: fc.constant('current' as const) },
    { weight: 2, arbitrary: fc.constant('next' as const) },
    fc.nat(3),
    fc.constantFrom(-1, 1.5, 2 ** 53),
  ),
});
const key = fc.constantFrom('default' as const, 'explicit' as const, 'reuse' as const);
const message = fc.oneof({ weight: 9, arbitrary: plainText }, fc.constant(''));

/** Every call but drain, which the target's steps make rarely (a drained host refuses everything). */
export const daemonCall: fc.Arbitrary<DaemonCall> = fc.oneof(
  fc.constant({ kind: 'handshake' as const }),
  {
    weight: 3,
    arbitrary: fc
      .record({ ref, mode: fc.constantFrom('memory' as const, 'memory' as const, 'new' as const), systemPrompt: fc.option(plainText, { nil: undefined }) })
      .map((open) => ({ kind: 'open' as const, ...open })),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('attach' as const, 'attach' as const, 'detach' as const, 'abort' as const), ref }) },
  {
    weight: 4,
    arbitrary: fc
      .record({ ref, prompt: message, key, waitForTerminal: fc.option(fc.boolean(), { nil: undefined }) })
      .map((wake) => ({ kind: 'wake' as const, ...wake })),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('steer' as const, 'followUp' as const), ref, message, key }) },
  { weight: 2, arbitrary: fc.option(fc.constantFrom(...SESSIONS, PROBE), { nil: undefined }).map((session) => ({ kind: 'status' as const, session })) },
  fc.record({ ref, retain: fc.option(fc.boolean(), { nil: undefined }) }).map((close) => ({ kind: 'close' as const, ...close })),
);

/** Makes the call `spec` of the session's client. */
export function callDaemon(run: ClientRun, session: DaemonSession, spec: DaemonCall): void {
  const { calls, failed } = run;
  const { client } = session;
  const refOf = (r: Ref): SessionRef => {
    const current = session.proxy.sim.session(r.session)?.generation ?? 1;
    return { sessionId: r.session, generation: r.generation === 'current' ? current : r.generation === 'next' ? current + 1 : r.generation };
  };
  const keyFor = (choice: 'default' | 'explicit' | 'reuse'): string | undefined =>
    choice === 'explicit' || (choice === 'reuse' && session.usedKey === undefined) ? `key-${run.acts}` : choice === 'reuse' ? session.usedKey : undefined;
  const keyed = (given: string | undefined): string | undefined => {
    const used = given ?? (session.plan.keys === 'counter' ? session.lastKey() : undefined);
    session.usedKey = used;
    return used;
  };
  const where = `DaemonClient.${spec.kind}`;
  switch (spec.kind) {
    case 'handshake':
      return calls.track(
        client.handshake(),
        where,
        (info) =>
          typeof info.hostInstanceId === 'string' && info.hostInstanceId !== '' && info.protocolVersion === '2.0'
            ? undefined
            : 'handshake resolved with host info it should have refused',
        failed(where),
      );
    case 'open':
      return calls.track(
        client.open(
          refOf(spec.ref),
          spec.systemPrompt === undefined
            ? { ...OPEN, session: { mode: spec.mode } }
            : { ...OPEN, session: { mode: spec.mode }, systemPrompt: spec.systemPrompt },
        ),
        where,
        (opened) =>
          typeof opened.created === 'boolean' && typeof opened.session === 'object' ? undefined : 'open resolved with data that is not { created, session }',
        failed(where),
      );
    case 'attach':
      session.attachedEver.add(spec.ref.session);
      return calls.track(
        client.attach(refOf(spec.ref)),
        where,
        (attached) =>
          Number.isSafeInteger(attached.generation) && Number.isSafeInteger(attached.sequence) && attached.sequence >= 0
            ? undefined
            : 'attach resolved with numbers outside 0..2^53 − 1',
        failed(where),
      );
    case 'detach':
      return calls.track(client.detach(refOf(spec.ref)), where, () => undefined, failed(where));
    case 'abort':
      return calls.track(
        client.abort(refOf(spec.ref)),
        where,
        (aborted) => (typeof aborted === 'boolean' ? undefined : 'abort resolved with no boolean'),
        failed(where),
      );
    case 'wake': {
      const given = keyFor(spec.key);
      const options = {
        prompt: spec.prompt,
        ...(given !== undefined && { idempotencyKey: given }),
        ...(spec.waitForTerminal !== undefined && { waitForTerminal: spec.waitForTerminal }),
      };
      const answer = client.wake(refOf(spec.ref), options);
      const used = keyed(given);
      return calls.track(
        answer,
        where,
        (woke) =>
          woke.idempotencyKey === used || used === undefined
            ? woke.terminal && typeof woke.result.text !== 'string'
              ? 'wake resolved with no text'
              : undefined
            : 'wake answered with another idempotencyKey',
        failed(where, used),
      );
    }
    case 'steer':
    case 'followUp': {
      const given = keyFor(spec.key);
      const answer = spec.kind === 'steer' ? client.steer(refOf(spec.ref), spec.message, given) : client.followUp(refOf(spec.ref), spec.message, given);
      return calls.track(answer, where, () => undefined, failed(where, keyed(given)));
    }
    case 'status':
      return calls.track(client.status(spec.session), where, () => undefined, failed(where));
    case 'close':
      return calls.track(
        client.close(refOf(spec.ref), spec.retain === undefined ? {} : { retainSession: spec.retain }),
        where,
        (closed) => (typeof closed === 'boolean' ? undefined : 'close resolved with no boolean'),
        failed(where),
      );
    case 'drain':
      // The client waits for drain's answer the host's timeout plus its own: keep both within a batch's settling.
      return calls.track(client.drain({ timeoutMs: TIMEOUT_MS }), where, () => undefined, failed(where));
  }
}
