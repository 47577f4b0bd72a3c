// Backpressure in daemon mode: a side that does not read makes the gateway stop reading the other
// side, instead of buffering without bound (or dropping the slow side). Each test pushes 32 MiB at
// a side that does not read, waits until the flow has stopped, and checks where the bytes wait:
// at the sender, not in the gateway. Then the reader resumes and every record arrives, in order.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { command, connectDaemonBrowser, openCommand, responseTo, startFakeDaemon, type FakeDaemon } from './daemonHelpers.js';
import { KEY, ORIGIN, tempDir, within, type BrowserClient } from './helpers.js';

const RECORD_BYTES = 64 * 1024;
const RECORDS = 512;
const TOTAL = RECORD_BYTES * RECORDS;
/** Room for every buffer outside the gateway on the way (kernel socket buffers, ws queues). */
const SLACK = 12 * 1024 * 1024;

let dir: ReturnType<typeof tempDir>;
let daemon: FakeDaemon;
let gateway: Gateway;
let client: BrowserClient;
let logs: string[];

/** Resolves once `read()` has stopped changing, i.e. the flow has stopped; bounded by `within`. */
async function settled(read: () => number): Promise<number> {
  return within(
    (async () => {
      let last = -1;
      let same = 0;
      for (;;) {
        const now = read();
        same = now === last ? same + 1 : 0;
        if (same >= 10) return now;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
    'the flow to stop',
    20_000,
  );
}

async function until(done: () => boolean, what: string): Promise<void> {
  await within(
    (async () => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    })(),
    what,
    20_000,
  );
}

beforeEach(async () => {
  dir = tempDir('aicc-daemon-bp-');
  daemon = await startFakeDaemon(join(dir.path, 'daemon.sock'));
  const mine: string[] = (logs = []);
  gateway = await startGateway({
    target: { kind: 'daemon', socketPath: daemon.path, highWaterBytes: 256 * 1024 },
    origins: [ORIGIN],
    key: KEY,
    log: (line) => mine.push(line),
  });
  client = connectDaemonBrowser(`${gateway.url}/`);
  client.send(command('r0', 'handshake'));
  await responseTo(client, 'r0');
  // The page's own session: the gateway passes on commands for no other.
  client.send(openCommand('o0', 's'));
  await responseTo(client, 'o0');
});

afterEach(async () => {
  client.close();
  await within(client.closed, 'the client to close');
  await gateway.close();
  await daemon.close();
  dir.remove();
});

describe('daemon mode: backpressure', () => {
  it('stops reading the daemon while the browser does not read, then delivers every event in order', async () => {
    const [socket] = daemon.sockets;
    client.socket.pause();
    const filler = 'x'.repeat(RECORD_BYTES - 200);
    // The daemon writes a line only once the last one has left for the kernel (a socket's
    // writableLength is no measure here: Node sends queued writes as one writev and counts it
    // down only when it completes), so `written` counts what the gateway's side took.
    let written = 0;
    const pump = (): void => {
      while (written < RECORDS) {
        written++;
        const line = JSON.stringify({
          protocolVersion: '2.0',
          kind: 'event',
          event: 'messageUpdate',
          hostInstanceId: 'fake-host',
          sessionId: 's',
          generation: 1,
          sequence: written,
          data: filler,
        });
        if (!socket!.write(`${line}\n`)) return void socket!.once('drain', pump);
      }
    };
    pump();
    // The flow stops with most of the 32 MiB still at the daemon: the gateway took no more than its bound.
    const taken = await settled(() => written);
    expect(taken * RECORD_BYTES).toBeLessThan(TOTAL - SLACK);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    client.socket.resume();
    // Counted, not parsed, while waiting: BrowserClient.records parses every frame on each look.
    await until(() => client.frames.length === RECORDS + 2, 'every event');
    const sequences = client.records.filter((record) => record.kind === 'event').map((record) => record.sequence);
    expect(sequences).toEqual(Array.from({ length: RECORDS }, (_, i) => i + 1));
  });

  it('stops reading the browser while the daemon does not read, then forwards every command in order', async () => {
    const [socket] = daemon.sockets;
    daemon.answer = false;
    socket!.pause();
    const filler = 'y'.repeat(RECORD_BYTES - 200);
    for (let i = 1; i <= RECORDS; i++) client.send(command(`c${i}`, 'followUp', { message: filler }, { sessionId: 's', generation: 1 }));
    // Most of the 32 MiB is still queued in the browser: the gateway took no more than its bound.
    const queued = await settled(() => client.socket.bufferedAmount);
    expect(queued).toBeGreaterThan(TOTAL - SLACK);
    socket!.resume();
    await daemon.waitForLines(RECORDS + 2, 20_000);
    expect(daemon.lines.slice(2).map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(
      Array.from({ length: RECORDS }, (_, i) => `c${i + 1}`),
    );
  });

  it('ends a held-back browser promptly with 4502 when the daemon leaves', async () => {
    const [socket] = daemon.sockets;
    daemon.answer = false;
    socket!.pause();
    const filler = 'z'.repeat(RECORD_BYTES - 200);
    for (let i = 1; i <= 128; i++) client.send(command(`c${i}`, 'followUp', { message: filler }, { sessionId: 's', generation: 1 }));
    await settled(() => client.socket.bufferedAmount);
    socket!.destroy();
    expect((await within(client.closed, 'the close')).code).toBe(4502);
    // The gateway read the browser's answer to its close although it had stopped reading it: the
    // connection ends (and is logged) now, not at ws's 30 s close timeout.
    await until(() => logs.some((line) => line.includes('#1 ')), 'the log line');
    expect(logs.find((line) => line.includes('#1 '))).toMatch(/pi-daemon relay: closed \(4502\): the connection to the pi daemon ended/);
  });
});
