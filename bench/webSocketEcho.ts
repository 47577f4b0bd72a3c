// The baseline of bench/webSocket.bench.ts: the physical floor of one round trip over a WebSocket on
// 127.0.0.1 — a bare `ws` client sends a JSON text frame, a bare `ws` server sends the same bytes
// back, the client awaits it. No parsing, no protocol: only the sockets, the loopback and the event
// loop on each side, which the capsule's round trip goes through too.

import type { AddressInfo } from 'node:net';
import { WebSocket, type RawData } from 'ws';
import { closeServer, listen, type CallPeer } from './capsulePeer.js';

/**
 * `json`: both ends also do what any JSON protocol must — the server parses the frame and sends a
 * freshly stringified reply, the client parses that and stringifies its next frame afresh — and
 * nothing else: the floor for a JSON protocol over this transport.
 */
export async function echoOverWebSocket(frame: string, options: { json?: boolean } = {}): Promise<CallPeer> {
  const json = options.json === true;
  const message: unknown = JSON.parse(frame);
  const server = await listen();
  server.on('connection', (socket) => {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (json) socket.send(JSON.stringify(JSON.parse((data as Buffer).toString('utf8'))));
      else socket.send(data as Buffer, { binary: isBinary });
    });
  });
  const socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let waiting: (() => void) | undefined;
  socket.on('message', (data: RawData) => {
    if (json) JSON.parse((data as Buffer).toString('utf8'));
    const done = waiting;
    waiting = undefined;
    done?.();
  });
  return {
    call: () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
        socket.send(json ? JSON.stringify(message) : frame);
      }),
    async close() {
      await new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close(1000, 'bench over');
      });
      await closeServer(server);
    },
  };
}
