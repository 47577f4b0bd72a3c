// `aicc demo --agent pi`: one villager driven by pi, reached the way a page would reach it — pi-peers
// over a WebSocket to the gateway, which runs `pi --mode rpc` with the user's own pi configuration.

import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import type { ChatBackend } from '../agent/pilot/backend.js';
import { PeersBackend } from '../agent/pilot/peersBackend.js';
import { connectWebSocket, type WebSocketConstructor } from '../links/websocket.js';
import { PeersClient } from '../pi/peersClient.js';
import { KEY_PREFIX, SUBPROTOCOL } from './gateway/access.js';
import { PiHost } from './gateway/piHost.js';
import { startGateway } from './gateway/server.js';

export interface PiAgentOptions {
  /** The pi executable (default `pi` on PATH; a .js file runs with node). */
  piBin?: string;
  provider?: string;
  model?: string;
  /** Where pi finds models.json and auth (default: the user's own, ~/.pi/agent). */
  agentDir?: string;
  label?: string;
}

export interface PiAgent {
  backend: ChatBackend;
  close(): Promise<void>;
}

/** Starts pi behind a gateway on 127.0.0.1 and connects to it as a page would, with a one-off key. */
export async function startPiAgent(options: PiAgentOptions = {}): Promise<PiAgent> {
  const host = await PiHost.start({
    ...(options.piBin !== undefined && { piBin: options.piBin }),
    ...(options.provider !== undefined && { provider: options.provider }),
    ...(options.model !== undefined && { model: options.model }),
    ...(options.agentDir !== undefined && { agentDir: options.agentDir }),
    label: options.label ?? 'villager',
    systemPrompt: 'You play one character in a small text game. Act only through the tool calls the game describes.',
  });
  const key = randomBytes(24).toString('hex');
  const gateway = await startGateway({ target: { kind: 'host', host }, origins: [], key, log: () => {} });
  try {
    const link = await connectWebSocket(`${gateway.url}/`, { WebSocket: WebSocket as unknown as WebSocketConstructor, protocols: [SUBPROTOCOL, KEY_PREFIX + key] });
    const peers = await PeersClient.connect(link, { from: { id: 'aicc-demo', label: 'Millbrook', host: 'localhost' } });
    return {
      backend: new PeersBackend(peers),
      close: async () => {
        peers.close();
        await gateway.close();
        await host.close();
      },
    };
  } catch (error) {
    await gateway.close();
    await host.close();
    throw error;
  }
}
