import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Frame } from '../../../src/protocol/codec.js';
import type { Link } from '../../../src/links/link.js';
import { CapsuleError } from '../../../src/base/errors.js';
import { connectSocketLink, streamLink } from '../../../src/node/socketLink.js';
import { tempDir, within } from './helpers.js';

/** A link over two PassThroughs: what the test writes to `wire` arrives as lines on the link. */
function pipeLink(maxLineBytes?: number): { link: Link; wire: PassThrough; out: PassThrough; frames: Frame[]; closed: Promise<string> } {
  const wire = new PassThrough();
  const out = new PassThrough();
  const link = streamLink(wire, out, maxLineBytes === undefined ? {} : { maxLineBytes });
  const frames: Frame[] = [];
  const closed = new Promise<string>((resolve) => link.listen({ message: (frame) => frames.push(frame), close: resolve }));
  return { link, wire, out, frames, closed };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('socketLink framing', () => {
  it('splits on \\n only, so U+2028 and U+2029 inside a JSON string survive', async () => {
    const { wire, frames } = pipeLink();
    const record = JSON.stringify({ text: 'a\u2028b\u2029c' });
    expect(record).toContain('\u2028'); // JSON.stringify leaves them raw: readline would split here
    wire.write(`${record}\n`);
    await tick();
    expect(frames).toEqual([record]);
  });

  it('strips a trailing \\r and joins a line split across chunks, even inside a UTF-8 character', async () => {
    const { wire, frames } = pipeLink();
    const bytes = Buffer.from('{"who":"Añda"}\r\n{"n":2}\n');
    const cut = bytes.indexOf(0xc3) + 1; // the middle of "ñ"
    wire.write(bytes.subarray(0, cut));
    await tick();
    expect(frames).toEqual([]);
    wire.write(bytes.subarray(cut));
    await tick();
    expect(frames).toEqual(['{"who":"Añda"}', '{"n":2}']);
  });

  it('closes the link with a clear reason when a line is longer than maxLineBytes', async () => {
    const { wire, frames, closed, link } = pipeLink(16);
    wire.write('{"ok":1}\n');
    wire.write('x'.repeat(10));
    wire.write('y'.repeat(10)); // 20 bytes and no newline yet
    expect(await within(closed, 'the close')).toBe('socketLink: a line exceeded 16 bytes; the peer must keep records shorter, or raise maxLineBytes');
    expect(frames).toEqual(['{"ok":1}']);
    expect(link.open).toBe(false);
  });

  it('accepts a line of exactly maxLineBytes, with or without \\r', async () => {
    const { wire, frames, link } = pipeLink(8);
    wire.write('12345678\n12345678\r\n');
    await tick();
    expect(frames).toEqual(['12345678', '12345678']);
    expect(link.open).toBe(true);
  });

  it('closes the link when a line is not UTF-8', async () => {
    const { wire, closed } = pipeLink();
    wire.write(Buffer.from([0x7b, 0xff, 0x7d, 0x0a]));
    expect(await within(closed, 'the close')).toMatch(/not valid UTF-8/);
  });

  it('writes each frame as one line and refuses frames that are not one line of text', async () => {
    const { link, out } = pipeLink();
    link.send('{"a":1}');
    expect(out.read()?.toString()).toBe('{"a":1}\n');
    expect(() => link.send('{"a":\n1}')).toThrow(CapsuleError);
    expect(() => link.send(new Uint8Array([1]))).toThrow(/NDJSON carries text only/);
  });

  it('holds records that arrive before listen() and delivers them after it returns', async () => {
    const wire = new PassThrough();
    const link = streamLink(wire, new PassThrough());
    wire.write('{"n":1}\n{"n":2}\n');
    await tick();
    const frames: Frame[] = [];
    link.listen({ message: (frame) => frames.push(frame), close: () => {} });
    expect(frames).toEqual([]);
    await tick();
    expect(frames).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('reports the peer ending the stream, once', async () => {
    const { wire, closed } = pipeLink();
    wire.end();
    expect(await within(closed, 'the close')).toBe('stream ended by the peer');
  });
});

describe('connectSocketLink', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: Server;
  let accepted: Socket[];

  beforeEach(async () => {
    dir = tempDir('aicc-socketlink-');
    accepted = [];
    server = createServer((socket) => {
      accepted.push(socket);
      socket.on('data', (chunk) => socket.write(chunk)); // an echo peer
    });
    await new Promise<void>((resolve) => server.listen(join(dir.path, 'agent.sock'), resolve));
  });

  afterEach(async () => {
    accepted.forEach((s) => s.destroy());
    await new Promise<void>((resolve) => server.close(() => resolve()));
    dir.remove();
  });

  it('connects to a Unix socket and carries records both ways', async () => {
    const link = await connectSocketLink(join(dir.path, 'agent.sock'));
    const got = new Promise<Frame>((resolve) => link.listen({ message: resolve, close: () => {} }));
    link.send('{"type":"hello"}');
    expect(await within(got, 'the echo')).toBe('{"type":"hello"}');
    link.close();
  });

  it('rejects with the path and what to check when nothing listens there', async () => {
    const missing = join(dir.path, 'gone.sock');
    await expect(connectSocketLink(missing)).rejects.toThrow(`connectSocketLink: cannot connect to ${missing} (ENOENT); is the agent still running?`);
  });

  it('closing the link ends the socket for the peer', async () => {
    const link = await connectSocketLink(join(dir.path, 'agent.sock'));
    await vi.waitFor(() => expect(accepted).toHaveLength(1), { timeout: 5000 });
    const ended = new Promise<void>((resolve) => accepted[0]!.on('end', () => resolve()));
    link.close('done');
    await within(ended, 'the peer to see the end');
    expect(link.open).toBe(false);
  });
});
