// A stand-in for `aicc gateway` on 127.0.0.1: it checks each connection's key with the gateway's own
// AccessPolicy and echoes every text frame back with "echo:" in front.

import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import { AccessPolicy, parseProtocols, selectSubprotocol } from '../../../src/node/gateway/access.js';

export const GATEWAY_KEY = 'proxy-test-key-0123456789abcdef';

export interface FakeGateway {
  url: string;
  /** The subprotocols each connection offered, in order. */
  offers: string[][];
  close(): Promise<void>;
}

/** `subprotocol`: the one it serves, pi-peers.v1 or (a gateway in daemon mode) pi-daemon.v2. */
export async function startFakeGateway(key: string = GATEWAY_KEY, subprotocol?: string): Promise<FakeGateway> {
  const policy = new AccessPolicy([], key, subprotocol);
  const offers: string[][] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (protocols) => selectSubprotocol(protocols, policy.subprotocol) });
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const offered = parseProtocols(request.headers['sec-websocket-protocol']);
    offers.push(offered);
    const refusal = policy.check(request.headers.origin, offered);
    if (refusal !== undefined) return socket.close(refusal.code, refusal.reason);
    socket.on('message', (data, isBinary) => socket.send(isBinary ? data : `echo:${data.toString()}`, { binary: isBinary }));
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const address = wss.address();
  if (address === null || typeof address === 'string') throw new Error('fake gateway: no TCP port');
  return {
    url: `ws://127.0.0.1:${address.port}/`,
    offers,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
