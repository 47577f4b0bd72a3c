// One hostile handshake on a fresh TCP connection, and everything the gateway answers read: the
// HTTP head and body, and after a 101 every frame up to the close, each checked for secrets and
// documented close codes.

import { connect as connectTcp } from 'node:net';
import type { FuzzContext } from '../harness/context.js';
import { CLOSE_CODES } from './gatewayCloses.js';
import type { Handshake } from './gatewayHandshakes.js';

const MASK = [0x1b, 0x2c, 0x3d, 0x4e];

/** A masked close frame with `code`, as a client sends it. */
function clientClose(code: number): Buffer {
  return Buffer.from([0x88, 0x82, ...MASK, (code >> 8) ^ MASK[0]!, (code & 0xff) ^ MASK[1]!]);
}

/** One unmasked frame from the server at the start of `buffer`, or undefined until it is whole. */
function serverFrame(buffer: Buffer): { opcode: number; payload: Buffer; rest: Buffer } | undefined {
  if (buffer.length < 2) return undefined;
  let length = buffer[1]! & 0x7f;
  let at = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    at = 10;
  }
  if (buffer.length < at + length) return undefined;
  return { opcode: buffer[0]! & 0x0f, payload: buffer.subarray(at, at + length), rest: buffer.subarray(at + length) };
}

/**
 * Sends one handshake on a fresh TCP connection and reads all the gateway answers: the HTTP head
 * and body, and after a 101 every frame up to the close (a close of ours goes out at once, so an
 * accepted connection ends too). A gateway that says nothing for 5 s is a problem.
 */
export function rawHandshake(port: number, shake: Handshake, context: FuzzContext, where: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port });
    let buffer: Buffer = Buffer.alloc(0);
    let status: number | undefined;
    let body = '';
    let finished = false;
    const finish = (trouble?: string): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      if (body !== '') context.seen(body, `${where}: an HTTP body`);
      if (trouble !== undefined) context.problem(trouble);
      resolve();
    };
    const timer = setTimeout(() => finish(`${where}: no answer within 5 s to ${shake.method} ${shake.path.slice(0, 60)}`), 5000);
    socket.on('error', () => finish()); // a reset once the gateway is done with us
    socket.on('close', () => finish());
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (status === undefined) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 4);
        context.seen(head, `${where}: a response head`);
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
        if (status === 101) socket.write(clientClose(1000));
      }
      if (status !== 101) {
        body += buffer.toString('utf8');
        buffer = Buffer.alloc(0);
        return;
      }
      for (let frame = serverFrame(buffer); frame !== undefined; frame = serverFrame(buffer)) {
        buffer = frame.rest;
        if (frame.opcode === 0x8) {
          const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
          context.code(String(code), CLOSE_CODES, `${where}: a close code`);
          context.seen(frame.payload.subarray(2).toString('utf8'), `${where}: a close reason`);
          return finish();
        }
        context.seen(frame.payload.toString('utf8'), `${where}: a frame`);
      }
    });
    const lines = [`${shake.method} ${shake.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...shake.headers.map(([name, value]) => `${name}: ${value}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}
