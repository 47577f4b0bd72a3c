// pi as a chat agent for a pilot, from Node: `startPiAgent` reaches pi the way a page would — pi-peers
// over a WebSocket to a gateway on 127.0.0.1, which runs `pi --mode rpc` with the user's own pi
// configuration; `startDaemonAgent` opens a session on a running pi-daemon, straight over its Unix
// socket (Node needs no gateway), protocol v2. `aicc demo --agent pi|pi-daemon:SOCKET` drives a
// villager with them, `aicc eval --agent pi:…|pi-daemon:…` the characters under test.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import WebSocket from 'ws';
import type { ChatBackend } from '../../agent/pilot/backend.js';
import { DaemonBackend } from '../../agent/pilot/daemonBackend.js';
import { PeersBackend } from '../../agent/pilot/peersBackend.js';
import { connectWebSocket, type WebSocketConstructor } from '../../links/websocket.js';
import type { Link } from '../../links/link.js';
import { DaemonClient } from '../../pi/daemonClient.js';
import type { ReconnectOptions } from '../../pi/reconnect.js';
import { PeersClient } from '../../pi/peersClient.js';
import { KEY_PREFIX, SUBPROTOCOL } from '../gateway/access.js';
import { PiHost } from '../gateway/piHost.js';
import { startGateway } from '../gateway/server.js';
import { connectSocketLink } from '../socketLink.js';

const SYSTEM_PROMPT = 'You play one character in a small text game. Act only through the tool calls the game describes.';

export interface PiAgentOptions {
  /** The pi executable (default `pi` on PATH; a .js file runs with node). */
  piBin?: string;
  /** The Node that runs a .js piBin (default this process's): pi 1.x wants Node 22.19 or later. */
  node?: string;
  provider?: string;
  model?: string;
  /** Where pi finds models.json and auth (default: the user's own, ~/.pi/agent). */
  agentDir?: string;
  label?: string;
  /** Replaces the short default system prompt. */
  systemPrompt?: string;
  /** Who connects, as the gateway's peer list shows it. Default `aicc-demo` from Millbrook. */
  from?: { id: string; label: string };
}

export interface PiAgent {
  backend: ChatBackend;
  close(): Promise<void>;
}

/** Starts pi behind a gateway on 127.0.0.1 and connects to it as a page would, with a one-off key. */
export async function startPiAgent(options: PiAgentOptions = {}): Promise<PiAgent> {
  const host = await PiHost.start({
    ...(options.piBin !== undefined && { piBin: options.piBin }),
    ...(options.node !== undefined && { node: options.node }),
    ...(options.provider !== undefined && { provider: options.provider }),
    ...(options.model !== undefined && { model: options.model }),
    ...(options.agentDir !== undefined && { agentDir: options.agentDir }),
    label: options.label ?? 'villager',
    systemPrompt: options.systemPrompt ?? SYSTEM_PROMPT,
  });
  const key = randomBytes(24).toString('hex');
  const gateway = await startGateway({ target: { kind: 'host', host }, origins: [], key, log: () => {} });
  try {
    const connect = (): Promise<Link> =>
      connectWebSocket(`${gateway.url}/`, { WebSocket: WebSocket as unknown as WebSocketConstructor, protocols: [SUBPROTOCOL, KEY_PREFIX + key] });
    // The gateway is in this process, but its socket can still drop: the client connects again, as a page's does.
    const peers = await PeersClient.connect(await connect(), {
      from: { ...(options.from ?? { id: 'aicc-demo', label: 'Millbrook' }), host: 'localhost' },
      reconnect: { connect },
    });
    const backend = new PeersBackend(peers);
    return {
      backend,
      close: async () => {
        // Through the backend, so its own close is not taken for the agent going away (onGone).
        backend.close();
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

export interface DaemonAgentOptions {
  /** The daemon's Unix socket (`pi-daemon serve --socket PATH`). */
  socketPath: string;
  /** The session's model; both or neither (default: the daemon's own). */
  provider?: string;
  model?: string;
  /** The villager: the session is `aicc-demo-<label>`, unless `sessionId` names it. */
  label?: string;
  sessionId?: string;
  /** Replaces the short default system prompt. */
  systemPrompt?: string;
  /** The session's folder on the daemon's host: under its --allow-root. Default: this process's. */
  cwd?: string;
  /**
   * After the socket drops (a daemon restart or crash), how the client connects again: attempts and
   * backoff (src/pi/reconnect.ts; default 8 attempts from 500 ms, doubling, at most 30 s apart: about
   * 90 s in all). A daemon that stays away longer ends the agent: its backend's onGone says why.
   */
  reconnect?: Omit<ReconnectOptions, 'connect'>;
}

/**
 * Connects to a running pi-daemon over its socket and opens the villager's session (memory mode,
 * every resource "none", a new generation each run). Closing closes the session, then the link.
 */
export async function startDaemonAgent(options: DaemonAgentOptions): Promise<PiAgent> {
  if ((options.provider === undefined) !== (options.model === undefined)) {
    throw new Error("startDaemonAgent: give --provider and --model together, or neither for the daemon's default model");
  }
  if (!existsSync(options.socketPath)) {
    throw new Error(
      `startDaemonAgent: no socket at ${options.socketPath}; start the daemon with \`pi-daemon serve --socket ${options.socketPath}\`, or name its socket`,
    );
  }
  const connect = (): Promise<Link> => connectSocketLink(options.socketPath);
  const client = await DaemonClient.connect(await connect(), { reconnect: { ...options.reconnect, connect } });
  try {
    const model = options.provider === undefined ? {} : { model: { provider: options.provider, id: options.model! } };
    const backend = await DaemonBackend.open(client, {
      sessionId: options.sessionId ?? `aicc-demo-${options.label ?? 'villager'}`,
      // The session works in this folder: the daemon's --allow-root must hold it.
      cwd: options.cwd ?? process.cwd(),
      open: { session: { mode: 'memory' }, systemPrompt: options.systemPrompt ?? SYSTEM_PROMPT, ...model },
    });
    return {
      backend,
      close: async () => {
        await backend.close();
        client.disconnect('aicc: done');
      },
    };
  } catch (error) {
    client.disconnect('aicc: the session did not open');
    throw error;
  }
}
