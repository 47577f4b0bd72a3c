// One DaemonClient under fuzz and the hostile host behind it: how each client is made (its bounds,
// reconnection, idempotency keys, and the fate of its first handshake), and the listeners that
// check all it emits as it comes: events of sessions it attached, numbered within 0..2^53 − 1, of
// the host in use; stream and problem reports of documented kinds; close reasons the docs give.

import fc from 'fast-check';
import { DaemonClient, DEFAULT_DAEMON_LIMITS, type DaemonClientOptions, type DaemonEvent, type StreamReport } from '../../../src/pi/index.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { connectThrough, planFor, reconnectPlan, type ClientRun, type ClientSession } from './clientRun.js';
import { PROBLEM_KINDS, RECONNECT_REASON, STALE_REASONS, STREAM_KINDS } from './daemonDocs.js';
import { PROBE, PROBE_REPLY, SESSIONS } from './daemonStage.js';
import { fate } from './hostileDaemonRecords.js';
import { HostileHost } from './hostileHost.js';
import { TIMEOUT_MS } from './manualTime.js';
import { firstFate } from './proxyFates.js';

const clientPlan = fc.record({
  reconnect: reconnectPlan,
  maxPending: fc.constantFrom(2, 8, 64),
  maxAttached: fc.constantFrom(SESSIONS.length + 1, 256),
  limits: fc.option(fc.record({ maxFrameBytes: fc.integer({ min: 2_048, max: 65_536 }), maxDepth: fc.integer({ min: 6, max: 40 }) }), {
    nil: undefined,
    freq: 2,
  }),
  keys: fc.constantFrom('counter', 'default'),
  handshake: firstFate(fate),
});
type ClientPlan = typeof clientPlan extends fc.Arbitrary<infer T> ? T : never;

export interface DaemonSession extends ClientSession {
  client: DaemonClient;
  proxy: HostileHost;
  plan: ClientPlan;
  /** The key the client made last (its newIdempotencyKey is ours), and the one a call used last. */
  lastKey: () => string | undefined;
  usedKey: string | undefined;
  /** Sessions this client was asked to attach: no event of another may be delivered. */
  attachedEver: Set<string>;
}

/** Makes the `n`th client and its host (a host of its own: `host-n`), its first handshake sometimes hostile. */
export function freshDaemon(run: ClientRun): (n: number) => Promise<DaemonSession> {
  const { context, clock } = run;
  return async (n) => {
    const plan = planFor(run, clientPlan, n);
    const limits = { ...DEFAULT_DAEMON_LIMITS, ...plan.limits };
    const sim = new DaemonSimulator({ clock, hostInstanceId: `host-${n}`, fallbackReply: PROBE_REPLY });
    const host = new HostileHost(sim, context, clock, run.act, limits);
    let made = 0;
    let last: string | undefined;
    const options: DaemonClientOptions = {
      clock,
      requestTimeoutMs: TIMEOUT_MS,
      wakeTimeoutMs: 3 * TIMEOUT_MS,
      maxPendingRequests: plan.maxPending,
      maxAttachedSessions: plan.maxAttached,
      limits,
    };
    if (plan.reconnect !== undefined) options.reconnect = { ...plan.reconnect, connect: () => host.connect() };
    if (plan.keys === 'counter') options.newIdempotencyKey = () => (last = `k${++made}`);

    const client = await connectThrough(run, host, plan.handshake, (link) => DaemonClient.connect(link, options));
    const session: DaemonSession = {
      client,
      proxy: host,
      plan,
      lastKey: () => last,
      usedKey: undefined,
      attachedEver: new Set([PROBE]),
      closedByUs: false,
      closed: false,
    };
    listen(run, session);
    return session;
  };
}

/** Everything the client emits is checked as it comes. */
function listen(run: ClientRun, session: DaemonSession): void {
  const { context } = run;
  const { client, plan } = session;
  client.on('event', (event: DaemonEvent) => {
    context.tally(`event ${event.sessionId === PROBE ? 'probe' : 'batch'}`);
    if (!Number.isSafeInteger(event.sequence) || !Number.isSafeInteger(event.generation) || event.sequence < 0 || event.generation < 0)
      context.problem('DaemonClient delivered an event numbered outside 0..2^53 − 1');
    if (event.hostInstanceId !== client.host.hostInstanceId) context.problem('DaemonClient delivered an event of another host than its own');
    if (!session.attachedEver.has(event.sessionId)) context.problem('DaemonClient delivered an event of a session never attached');
  });
  client.on('stream', (report: StreamReport) => {
    context.tally(`stream ${report.kind}${report.kind === 'stale' ? ` ${report.reason}` : ''}`);
    context.code(report.kind, STREAM_KINDS, 'DaemonClient stream report');
    if (report.kind === 'stale') context.code(report.reason, STALE_REASONS, 'DaemonClient stale report');
    if (report.kind === 'gap' && !(Number.isSafeInteger(report.from) && Number.isSafeInteger(report.to) && report.from <= report.to))
      context.problem('DaemonClient reported a gap that is not a range of whole numbers');
  });
  client.on('problem', (problem) => {
    context.tally(`problem ${problem.kind}`);
    context.code(problem.kind, PROBLEM_KINDS, 'DaemonClient problem event');
    context.seen(problem.message, 'problem message');
    if (problem.requestId !== undefined) context.seen(problem.requestId, 'problem requestId');
  });
  client.on('host', ({ previousHostInstanceId, hostInstanceId }) => {
    context.tally('host changed');
    if (previousHostInstanceId === hostInstanceId || hostInstanceId !== client.host.hostInstanceId)
      context.problem('a host event that names no change, or not the host now in use');
  });
  client.on('reconnect', (report) => {
    context.tally(`reconnect${report.hostChanged ? ' (new host)' : ''}`);
    if (report.hostChanged !== (report.hostInstanceId !== report.previousHostInstanceId) || !(report.attempt >= 1))
      context.problem('a reconnect report whose hostChanged does not match its ids');
    for (const lost of report.lost) {
      const problem = run.failed('reconnect re-attach')(lost.error);
      if (problem !== undefined) context.problem(problem);
    }
  });
  client.on('disconnect', ({ reason }) => {
    context.tally('disconnect');
    context.seen(reason, 'disconnect reason');
  });
  client.on('close', ({ reason }) => {
    session.closed = true;
    context.seen(reason, 'close reason');
    const byUs = session.closedByUs && reason === 'DaemonClient.disconnect()';
    const reconnectEnded = plan.reconnect !== undefined && RECONNECT_REASON.test(reason);
    if (!byUs && !reconnectEnded && !session.proxy.closeReasons.has(reason))
      context.problem(`DaemonClient closed for a reason the docs do not give: ${reason.slice(0, 60)}`);
    context.tally(byUs ? 'close: by the caller' : reconnectEnded ? 'close: reconnect ended' : 'close: link dropped');
  });
}
