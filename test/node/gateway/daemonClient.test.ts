// End to end through the gateway's daemon mode: a DaemonClient on a WebSocket (as a page would hold
// it) drives the pi-daemon simulator listening on a Unix socket in a temp dir, through the relay.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Link } from '../../../src/links/link.js';
import { connectWebSocket, type WebSocketConstructor } from '../../../src/links/websocket.js';
import { DAEMON_SUBPROTOCOL, KEY_PREFIX } from '../../../src/node/gateway/access.js';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { DaemonClient, type ReconnectReport } from '../../../src/pi/index.js';
import { CHAR, collect, daemonFailure, openAttached } from '../../pi/daemonHelpers.js';
import { DaemonSimulator } from '../../pi/daemonSimulator.js';
import { KEY, ORIGIN, tempDir, within } from './helpers.js';

/** `ws` with the Origin header a page from ORIGIN would send. */
class PageWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { origin: ORIGIN });
  }
}

let dir: ReturnType<typeof tempDir>;
let sim: DaemonSimulator;
let server: { close(): Promise<void> };
let gateway: Gateway;
let logs: string[];
let client: DaemonClient | undefined;

function pageLink(): Promise<Link> {
  return connectWebSocket(`${gateway.url}/`, {
    WebSocket: PageWebSocket as unknown as WebSocketConstructor,
    protocols: [DAEMON_SUBPROTOCOL, `${KEY_PREFIX}${KEY}`],
  });
}

beforeEach(async () => {
  dir = tempDir('aicc-daemon-client-');
  sim = new DaemonSimulator();
  server = await sim.listen(join(dir.path, 'daemon.sock'));
  const mine: string[] = (logs = []);
  gateway = await startGateway({
    target: { kind: 'daemon', socketPath: join(dir.path, 'daemon.sock') },
    origins: [ORIGIN],
    key: KEY,
    log: (line) => mine.push(line),
  });
});

afterEach(async () => {
  client?.disconnect('test over');
  client = undefined;
  await gateway.close();
  await server.close();
  expect(logs.join('\n')).not.toContain(KEY);
  dir.remove();
});

describe('DaemonClient through the gateway', () => {
  it('handshakes, opens, attaches and wakes; the events arrive in order, the reply with them', async () => {
    client = await DaemonClient.connect(await pageLink());
    expect(client.host.hostInstanceId).toBe('sim-host-1');
    const { events, problems, reports } = collect(client);
    const attached = await openAttached(client);
    expect(attached.attached).toBe(true);
    sim.scriptTurns((turn) => `Cleo heard: ${turn.prompt}`);
    const answer = await client.wake(CHAR, { prompt: 'A cart overturned by the well.' });
    expect(answer.terminal && answer.result.text).toBe('Cleo heard: A cart overturned by the well.');
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('promptAccepted');
    expect(names).toContain('messageEnd');
    expect(names.at(-1)).toBe('sessionIdle');
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => attached.sequence + i + 1));
    // The reply's own messageEnd (whatever shape the host gives its data) comes through the relay.
    expect(JSON.stringify(events.filter((event) => event.event === 'messageEnd').at(-1)!.data)).toContain('Cleo heard: A cart overturned by the well.');
    expect(problems).toEqual([]);
    expect(reports).toEqual([]);
    // The daemon received the client's four commands and nothing else: the relay adds no records.
    expect(sim.received.map((record) => record.operation)).toEqual(['handshake', 'open', 'attach', 'wake']);
  });

  it("hands on the daemon's typed errors unchanged: steer while idle is session_not_running", async () => {
    client = await DaemonClient.connect(await pageLink());
    await openAttached(client);
    const error = await daemonFailure(client.steer(CHAR, 'Run!'));
    expect(error.code).toBe('session_not_running');
  });

  it('surfaces a host restart behind the gateway on reconnect: a new hostInstanceId, sessions lost', async () => {
    client = await DaemonClient.connect(await pageLink(), { reconnect: { connect: pageLink, baseDelayMs: 1 } });
    await openAttached(client);
    const reconnected = new Promise<ReconnectReport>((resolve) => client!.on('reconnect', resolve));
    sim.restart();
    const report = await within(reconnected, 'the reconnect');
    expect(report).toMatchObject({ hostChanged: true, previousHostInstanceId: 'sim-host-1', hostInstanceId: 'sim-host-1-r1', reattached: [] });
    // The new page connection has not opened the session, so the client opens it again as it was:
    // the restarted host lost the memory session and will not give its generation out again.
    expect(report.lost.map((lost) => lost.error.code)).toEqual(['ephemeral_session_unavailable']);
    // The first connection's log line says the daemon ended it; the second is still open.
    expect(logs.find((line) => line.includes('#1 '))).toMatch(/pi-daemon relay: closed \(4502\): the connection to the pi daemon ended/);
  });

  it('keeps a session across a dropped page link: the new connection opens it again as it was, then attaches', async () => {
    const first = await pageLink();
    client = await DaemonClient.connect(first, { reconnect: { connect: pageLink, baseDelayMs: 1 } });
    await openAttached(client);
    const reconnected = new Promise<ReconnectReport>((resolve) => client!.on('reconnect', resolve));
    first.close('the network blinked');
    const report = await within(reconnected, 'the reconnect');
    expect(report).toMatchObject({ hostChanged: false, reattached: [CHAR], lost: [] });
    const opens = sim.received.filter((record) => record.operation === 'open');
    expect(opens).toHaveLength(2);
    // The same session (named on the daemon with the gateway's namespace in front), generation and payload.
    expect(opens[0]!['sessionId']).toMatch(new RegExp(`^gw-[0-9a-f]{16}:${CHAR.sessionId}$`));
    expect(opens[1]).toMatchObject({ sessionId: opens[0]!['sessionId'], generation: CHAR.generation, payload: opens[0]!['payload'] as object });
    sim.scriptTurns(() => 'still here');
    const answer = await client.wake(CHAR, { prompt: 'Are you there?' });
    expect(answer.terminal && answer.result.text).toBe('still here');
  });

  it('reports a session lost when the page reconnects through a restarted gateway: there it comes back empty', async () => {
    const socket = join(dir.path, 'daemon.sock');
    client = await DaemonClient.connect(await pageLink(), { reconnect: { connect: pageLink, baseDelayMs: 1 } });
    await openAttached(client);
    const reconnected = new Promise<ReconnectReport>((resolve) => client!.on('reconnect', resolve));
    // The gateway restarts on the same port: a new namespace on the daemon, where the page's session is new and empty.
    const port = Number(new URL(gateway.url).port);
    await gateway.close();
    gateway = await startGateway({ target: { kind: 'daemon', socketPath: socket }, origins: [ORIGIN], key: KEY, port, log: (line) => logs.push(line) });
    const report = await within(reconnected, 'the reconnect');
    expect(report).toMatchObject({ hostChanged: false, reattached: [] });
    expect(report.lost.map((lost) => lost.error.code)).toEqual(['session_not_found']);
  });

  it('fails to connect with a closed link when no daemon listens, and the gateway stays up', async () => {
    await server.close();
    const failure = await daemonFailure(pageLink().then((link) => DaemonClient.connect(link)));
    expect(failure.code).toBe('closed');
    expect(failure.message).toContain('the pi daemon is not reachable');
    // The gateway serves the next page as before.
    server = await sim.listen(join(dir.path, 'daemon.sock'));
    client = await DaemonClient.connect(await pageLink());
    expect(client.host.hostInstanceId).toBe('sim-host-1');
  });
});
