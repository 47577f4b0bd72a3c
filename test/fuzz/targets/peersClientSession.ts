// One PeersClient under fuzz and the hostile agent behind it: how each client is made (its token,
// bounds, reconnection, ids, and the fate of its first hello), and the listeners that check all it
// emits as it comes. A client that closed for a reason the docs do not give is a problem.

import fc from 'fast-check';
import { DEFAULT_PEERS_LIMITS, PeersClient, type PeersClientOptions } from '../../../src/pi/index.js';
import { redactor } from '../../../src/pi/peersError.js';
import { PeersSimulator } from '../../pi/peersSimulator.js';
import { connectThrough, planFor, reconnectPlan, type ClientRun, type ClientSession } from './clientRun.js';
import { HostileAgent } from './hostileAgent.js';
import { fate } from './hostilePeersRecords.js';
import { plainText } from './hostileValues.js';
import { TIMEOUT_MS } from './manualTime.js';
import { PROBLEM_KINDS, RECONNECT_REASON } from './peersDocs.js';
import { firstFate } from './proxyFates.js';

/** How each client is made: its token, bounds, reconnection, ids, and the fate of its first hello. */
const clientPlan = fc.record({
  token: fc.constantFrom('hex', 'hex', 'base64', 'prefixed', 'escaped', 'none'),
  secret: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }),
  from: fc.option(fc.record({ id: plainText, label: plainText, host: plainText }), { nil: undefined }),
  reconnect: reconnectPlan,
  maxPending: fc.constantFrom(2, 8, 64),
  limits: fc.option(fc.record({ maxFrameBytes: fc.integer({ min: 1_024, max: 65_536 }), maxDepth: fc.integer({ min: 4, max: 40 }) }), {
    nil: undefined,
    freq: 2,
  }),
  ids: fc.constantFrom('counter', 'uuid', 'default'),
  hello: firstFate(fate),
});
type ClientPlan = typeof clientPlan extends fc.Arbitrary<infer T> ? T : never;

function tokenFor(plan: ClientPlan): string | undefined {
  switch (plan.token) {
    case 'none':
      return undefined;
    case 'hex':
      return plan.secret;
    case 'base64':
      return `${Buffer.from(plan.secret, 'hex').toString('base64')}+/=`;
    case 'prefixed':
      return `pi-peers_${plan.secret}`;
    default:
      // Any string can sit in a discovery file: one with characters JSON escapes.
      return `tok"\\\n${plan.secret}`;
  }
}

/** One client and the agent behind it, with what the checks need to know. */
export interface PeersSession extends ClientSession {
  client: PeersClient;
  proxy: HostileAgent;
  plan: ClientPlan;
  /** The id the client made last (its newId is ours): a default delivery id. */
  lastId: () => string | undefined;
  lastDelivery: string | undefined;
}

/** Makes the `n`th client and its agent, its first hello sometimes hostile. */
export function freshPeers(run: ClientRun): (n: number) => Promise<PeersSession> {
  const { context, clock } = run;
  return async (n) => {
    const plan = planFor(run, clientPlan, n);
    const token = tokenFor(plan);
    if (token !== undefined) context.secret(token);
    const limits = { ...DEFAULT_PEERS_LIMITS, ...plan.limits };
    const sim = new PeersSimulator(token === undefined ? { clock } : { clock, token });
    const agent = new HostileAgent(sim, context, clock, run.act, token, limits);
    let made = 0;
    let last: string | undefined;
    const options: PeersClientOptions = { clock, requestTimeoutMs: TIMEOUT_MS, maxPendingRequests: plan.maxPending, limits };
    if (token !== undefined) options.token = token;
    if (plan.from !== undefined) options.from = plan.from;
    if (plan.reconnect !== undefined) options.reconnect = { ...plan.reconnect, connect: () => agent.connect() };
    if (plan.ids !== 'default')
      options.newId = () => (last = plan.ids === 'counter' ? `q${++made}` : `00000000-0000-4000-8000-${(++made).toString(16).padStart(12, '0')}`);

    const client = await connectThrough(run, agent, plan.hello, (link) => PeersClient.connect(link, options));
    const session: PeersSession = { client, proxy: agent, plan, lastId: () => last, lastDelivery: undefined, closedByUs: false, closed: false };
    const redact = redactor(token);
    client.on('problem', (problem) => {
      context.tally(`problem ${problem.kind}`);
      context.code(problem.kind, PROBLEM_KINDS, 'PeersClient problem event');
      context.seen(problem.message, 'problem message');
      if (problem.requestId !== undefined) context.seen(problem.requestId, 'problem requestId');
    });
    client.on('disconnect', ({ reason }) => {
      context.tally('disconnect');
      context.seen(reason, 'disconnect reason');
    });
    client.on('reconnect', ({ protocolVersion, attempt }) => {
      context.tally('reconnect');
      if (protocolVersion !== '1.0' || !(attempt >= 1)) context.problem('a reconnect event with an odd version or attempt');
    });
    client.on('close', ({ reason }) => {
      context.tally('close');
      context.seen(reason, 'close reason');
      session.closed = true;
      const legit =
        (session.closedByUs && reason === 'PeersClient.close()') ||
        [...agent.closeReasons].some((r) => redact(r) === reason) ||
        (plan.reconnect !== undefined && RECONNECT_REASON.test(reason));
      if (!legit) context.problem(`PeersClient closed for a reason the docs do not give: ${reason.slice(0, 60)}`);
      context.tally(
        session.closedByUs && reason === 'PeersClient.close()'
          ? 'close: by the caller'
          : RECONNECT_REASON.test(reason)
            ? 'close: reconnect ended'
            : 'close: link dropped',
      );
    });
    return session;
  };
}
