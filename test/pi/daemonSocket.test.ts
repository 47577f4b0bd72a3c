// DaemonClient straight to a daemon's Unix socket (connectSocketLink, NDJSON), the simulator
// listening in a temp dir: the Node-only way, with lines up to pi-daemon's 1 MiB.

import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSocketLink } from '../../src/node/socketLink.js';
import { DaemonClient } from '../../src/pi/index.js';
import { tempDir } from '../node/gateway/helpers.js';
import { CHAR, collect, openAttached } from './daemonHelpers.js';
import { DaemonSimulator } from './daemonSimulator.js';

const MiB = 1024 * 1024;

/** Everything a raw socket receives until the daemon closes it. */
function rawExchange(path: string, line: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('close', () => resolve(text.split('\n').filter((l) => l !== '')));
    socket.on('error', reject);
    socket.write(line);
  });
}

describe('DaemonClient over a Unix socket', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  let server: { close(): Promise<void> } | undefined;
  let client: DaemonClient | undefined;

  afterEach(async () => {
    client?.disconnect('test over');
    await server?.close();
    dir?.remove();
  });

  async function daemon(): Promise<{ sim: DaemonSimulator; path: string }> {
    dir = tempDir('aicc-daemon-socket-');
    const path = join(dir.path, 'daemon.sock');
    const sim = new DaemonSimulator();
    server = await sim.listen(path);
    return { sim, path };
  }

  it('handshakes, opens, attaches and wakes, with a prompt and a reply of nearly 1 MiB each', async () => {
    const { sim, path } = await daemon();
    client = await DaemonClient.connect(await connectSocketLink(path));
    const { events } = collect(client);
    await openAttached(client);
    // The schema allows 262,144 characters of prompt: four bytes each, that is 800 KB on the line.
    const prompt = '😀'.repeat(200_000);
    const big = 'é'.repeat(MiB / 2 - 400); // two bytes each: the reply's lines are just under 1 MiB
    sim.scriptTurns((turn) => `${turn.prompt.length} chars read; ${big}`);
    const answer = await client.wake(CHAR, { prompt });
    expect(answer.terminal && answer.result.text).toBe(`${prompt.length} chars read; ${big}`);
    expect(Buffer.byteLength(sim.receivedLines.at(-1)!)).toBeGreaterThan(800_000);
    const reply = events.filter((e) => e.event === 'messageEnd').at(-1)!.data as { message: { role: string; content: Array<{ text: string }> } };
    expect(reply.message.role).toBe('assistant');
    expect(reply.message.content[0]!.text).toBe(`${prompt.length} chars read; ${big}`);
    // The updates that carry the text twice (the delta and the message so far) pass the 1 MiB the host
    // may send: it sends eventDropped in their place, keeping their sequence.
    expect(events.filter((e) => e.event === 'eventDropped').map((e) => e.data)).toEqual([
      { originalEvent: 'messageUpdate', error: expect.objectContaining({ code: 'outbound_record_too_large' }) },
      { originalEvent: 'messageUpdate', error: expect.objectContaining({ code: 'outbound_record_too_large' }) },
    ]);
    expect(events.at(-1)!.event).toBe('sessionIdle');
  });

  it('a line over 1 MiB from the daemon closes the link: the client is closed, not thrown', async () => {
    const { sim, path } = await daemon();
    client = await DaemonClient.connect(await connectSocketLink(path));
    const closed = new Promise<string>((resolve) => client!.on('close', ({ reason }) => resolve(reason)));
    sim.sendLine(JSON.stringify({ kind: 'event', pad: 'x'.repeat(MiB) }));
    expect(await closed).toMatch(/exceeded 1048576 bytes/);
    expect(client.state).toBe('closed');
  });

  it('the daemon answers a bad JSON line, and a line over 1 MiB, with an error, then closes', async () => {
    const { path } = await daemon();
    const bad = await rawExchange(path, '{nope\n');
    expect(JSON.parse(bad[0]!)).toMatchObject({ kind: 'response', ok: false, error: { code: 'invalid_json' } });
    const long = await rawExchange(
      path,
      `${JSON.stringify({ protocolVersion: '2.0', requestId: 'r1', operation: 'status', payload: { pad: 'x'.repeat(MiB) } })}\n`,
    );
    expect(long.map((l) => JSON.parse(l) as { error: { code: string } }).map((r) => r.error.code)).toEqual(['line_too_large']);
  });
});
