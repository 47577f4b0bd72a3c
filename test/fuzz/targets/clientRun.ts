// The run both pi-client targets make (peersClient.ts, daemonClient.ts): batches of 60 hostile
// steps drawn from the seed, each step a record nobody asked for, a call with the fate of its
// answer, a connect fate, or time passing. Each batch ends with the clock run past every timeout:
// by then every call must have settled (callTracking.ts). Then the proxy turns honest and the
// target's check (its probe) must pass. A client the batch legitimately closed is replaced, and
// every 25 batches one is anyway, so that what each proxy and simulator remembers stays bounded.

import fc from 'fast-check';
import type { FuzzContext } from '../harness/context.js';
import type { Link } from '../../../src/links/link.js';
import { ManualClock } from '../../../src/base/clock.js';
import { draw } from './agentFrames.js';
import { Calls, watch } from './callTracking.js';
import { failureCheck, kindOf, type ClientError, type ErrorDocs, type FailureCheck } from './clientChecks.js';
import type { HostileProxy, Simulated, Unsolicited } from './hostileProxy.js';
import { runClock, settle, TIMEOUT_MS } from './manualTime.js';
import type { ConnectFate, Fate } from './proxyFates.js';

/** What every part of a run shares: its context, its clock, its calls, the count of hostile acts, and what the docs say of the client. */
export interface ClientRun {
  readonly context: FuzzContext;
  readonly clock: ManualClock;
  readonly calls: Calls;
  /** One hostile act: counted, and the watchdog hears it. */
  act(): void;
  readonly acts: number;
  readonly names: ClientNames;
  /** How a call may fail at `where` (naming `id`, the one to retry it with, when given). */
  failed(where: string, id?: string): FailureCheck;
}

/** How problem lines name the client, what it talks to, and its first record. */
export interface ClientNames {
  client: string;
  peer: string;
  greeting: string;
}

/** What the docs say of a client: its names, and its failures. */
export interface ClientDocs<E extends ClientError> extends ClientNames {
  error: ErrorDocs<E>;
}

/** One client and the proxy in front of its simulator. */
export interface ClientSession {
  client: { readonly state: string };
  proxy: HostileProxy<Simulated>;
  closedByUs: boolean;
  closed: boolean;
}

/** The steps both targets take; each adds steps of its own. */
export type CommonStep<Call> =
  | { kind: 'frame'; frame: Unsolicited }
  | { kind: 'call'; call: Call; fate: Fate }
  | { kind: 'connect'; fate: ConnectFate }
  | { kind: 'settle' }
  | { kind: 'tick'; ms: number }
  | { kind: 'flush' };

/** A client under fuzz: what is particular to it. */
export interface ClientUnderFuzz<S extends ClientSession, Call, Own> {
  steps: fc.Arbitrary<CommonStep<Call> | Own>;
  /** The `n`th client, and its proxy. */
  fresh(n: number): Promise<S>;
  call(session: S, call: Call): void;
  /** A step of the target's own. Synchronous: an await would let queued deliveries run between steps, which only `settle` may. */
  own(session: S, step: Own): void;
  /** How long the clock may run for the batch's calls to settle. */
  settleMs: number;
  /** How far the clock then moves for what the client gave up on to leave the wire. */
  lingerMs: number;
  /** Brings back a simulator that refuses everything for good; true when the clock must run again. */
  revive?(session: S): boolean;
  /** The caller closes the client (session.closedByUs is set first). */
  shut(session: S): void;
  /** The client still works with an honest peer: the target's probe. */
  check(session: S, batch: number): Promise<void>;
  /** Forgets what the simulator recorded in the batch. */
  forget(session: S): void;
}

export async function fuzzClient<S extends ClientSession, Call, Own, E extends ClientError>(
  context: FuzzContext,
  docs: ClientDocs<E>,
  make: (run: ClientRun) => ClientUnderFuzz<S, Call, Own>,
): Promise<void> {
  let acts = 0;
  const run: ClientRun = {
    context,
    names: docs,
    failed: failureCheck(context, docs.error),
    clock: new ManualClock(),
    calls: new Calls(context),
    act: () => {
      acts++;
      context.sent();
    },
    get acts() {
      return acts;
    },
  };
  const { clock, calls } = run;
  const target = make(run);
  const shut = (session: S): void => {
    session.closedByUs = true;
    target.shut(session);
  };

  let clients = 0;
  let session = await target.fresh(clients++);
  for (let batch = 0; acts < context.frames; batch++) {
    for (const next of draw(target.steps, context.seed, batch, 60)) {
      if (session.closed) break; // a closed client refuses everything at once: the next one learns more
      const step = next as CommonStep<Call>;
      switch (step.kind) {
        case 'frame':
          session.proxy.unsolicited(step.frame);
          break;
        case 'call':
          session.proxy.fates.push(step.fate);
          target.call(session, step.call);
          break;
        case 'connect':
          session.proxy.connects.push(step.fate);
          break;
        case 'settle':
          await settle();
          break;
        case 'tick':
          clock.advance(step.ms);
          break;
        case 'flush':
          session.proxy.flush();
          break;
        default:
          target.own(session, next as Own);
      }
    }
    // Time runs out for everything the batch left waiting; answers from now on are true.
    session.proxy.calm();
    const quiet = (): boolean => calls.pending === 0 && session.client.state !== 'reconnecting';
    await runClock(clock, quiet, TIMEOUT_MS / 4, target.settleMs);
    if (target.revive?.(session) === true) await runClock(clock, quiet, TIMEOUT_MS / 4, target.settleMs);
    calls.reportUnsettled();
    if (session.client.state === 'reconnecting') context.problem(`${docs.client} still reconnecting to an honest ${docs.peer} after every backoff`);
    clock.advance(target.lingerMs);
    await settle();
    session.proxy.honest = true;
    if (session.client.state === 'closed' || batch % 25 === 24) {
      shut(session);
      session = await target.fresh(clients++);
      session.proxy.honest = true;
    }
    await target.check(session, batch);
    session.proxy.honest = false;
    target.forget(session);
    if (batch % 10 === 0) await context.breathe();
  }
  shut(session);
}

/**
 * The client `connect` makes on a link of `proxy`, its first greeting meeting `fate`: refused with
 * a documented code (the link closed), or accepted, and then the client it gave must work like any
 * other. A refused one is followed by an honest connect.
 */
export async function connectThrough<C>(run: ClientRun, proxy: HostileProxy<Simulated>, fate: Fate, connect: (link: Link) => Promise<C>): Promise<C> {
  const { clock, context, names } = run;
  let client: C | undefined;
  if (fate.kind !== 'pass') {
    proxy.fates.push(fate);
    const link = proxy.link();
    const hostile = watch(connect(link));
    if (!(await runClock(clock, () => hostile.settled, TIMEOUT_MS / 4, 3 * TIMEOUT_MS)))
      context.problem(`${names.client}.connect never settled after a hostile ${names.greeting}`);
    client = hostile.value;
    if (hostile.settled && client === undefined) {
      const problem = run.failed(`${names.client}.connect`)(hostile.error);
      if (problem !== undefined) context.problem(problem);
      if (link.open) context.problem(`${names.client}.connect rejected and left its link open`);
      proxy.newClient();
    }
    proxy.calm();
  }
  if (client === undefined) {
    const connected = watch(connect(proxy.link()));
    await runClock(clock, () => connected.settled, TIMEOUT_MS / 4, 2 * TIMEOUT_MS);
    client = connected.value;
    if (client === undefined) throw new Error(`${names.client}.connect to an honest ${names.peer} did not resolve: ${kindOf(connected.error)}`);
  }
  return client;
}

/** The `n`th client's plan: drawn from a stream of the seed of its own, apart from the batches' steps. */
export const planFor = <T>(run: ClientRun, plan: fc.Arbitrary<T>, n: number): T => draw(plan, run.context.seed + 2, n, 1)[0]!;

/** How a client reconnects, when it does (one client in three does not). */
export const reconnectPlan = fc.option(
  fc.record({ maxAttempts: fc.integer({ min: 1, max: 4 }), baseDelayMs: fc.integer({ min: 1, max: 100 }), maxDelayMs: fc.integer({ min: 50, max: 400 }) }),
  { nil: undefined, freq: 3 },
);
