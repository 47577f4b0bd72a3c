// The baseline of bench/webSocket.bench.ts: the physical floor of one round trip over a WebSocket on
// 127.0.0.1 — a bare `ws` client sends a JSON text frame, a bare `ws` server sends the same bytes
// back, the client awaits it. No parsing, no protocol: only the sockets, the loopback and the event
// loop on each side, which the capsule's round trip goes through too.

import type { AddressInfo } from 'node:net';
import { WebSocket, type RawData } from 'ws';
import { closeServer, listen, type CallPeer } from './capsulePeer.js';

export async function echoOverWebSocket(frame: string): Promise<CallPeer> {
  const server = await listen();
  server.on('connection', (socket) => {
    socket.on('message', (data: RawData, isBinary: boolean) => socket.send(data as Buffer, { binary: isBinary }));
  });
  const socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let waiting: (() => void) | undefined;
  socket.on('message', () => {
    const done = waiting;
    waiting = undefined;
    done?.();
  });
  return {
    call: () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
        socket.send(frame);
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
