// What the browser demo pages share: their URL parameters, the villagers' names, the page errors
// they keep (and show on the page: status.ts), the `window.aiccDemo` contract the browser tests and
// the frame benchmark read, and the two ways a character leaves the page's scripts — pi driving it
// through the pilot over the page's own origin (/pi), or the page lending it to the MCP clients of
// a gateway (/characters/<id>). The demo server proxies both to the gateway and adds the key there:
// it never reaches the page. When either cannot connect, the page says which character stands idle
// and why (the demo server's reason, such as "no gateway: start npm run demo:web with --gateway …").

import type { AgentClient } from '../../src/agent/agentClient.js';
import { PeersBackend } from '../../src/agent/pilot/peersBackend.js';
import { Pilot } from '../../src/agent/pilot/pilot.js';
import type { Link } from '../../src/links/link.js';
import { webSocketLink, type WebSocketConstructor } from '../../src/links/websocket.js';
import { PeersClient } from '../../src/pi/peersClient.js';
import type { Capsule } from '../../src/runtime/capsule.js';
import { pageStatus } from './status.js';

/** What a demo page puts on `window.aiccDemo`. */
export interface AiccDemo {
  /** True once the capsule runs and every agent is connected. */
  ready: boolean;
  agent: AgentKind;
  capsule: Capsule;
  /** The agent-driven characters' positions (a 3D page gives its ground plane's x and z). */
  characters(): Array<{ id: string; x: number; y: number }>;
  /** Tool calls that completed ok so far. */
  calls(): number;
  /** Errors the page caught. */
  errors: string[];
  /** Frames run and the ms spent in the capsule in them. */
  frameStats(): { frames: number; capsuleMs: number };
  /** Starts the game's scene again, as a game does between levels (a page with a Phaser scene). */
  restart?(): void;
}

/** The most characters a page will make, whatever the URL asks (the benchmark uses 50). */
export const MAX_CHARACTERS = 100;
const NAMES = ['ada', 'bram', 'cleo', 'dov', 'edda', 'finn', 'greta', 'hugo'];

/**
 * Who drives the page's agent character: scripts, pi (through the pilot), or whoever the gateway
 * hands the lent character to — an MCP client (`mcp`: a gateway with --mcp) or the gateway's own
 * model (`model`: `aicc gateway model`). The page does the same for both: it lends the character.
 */
export type AgentKind = 'scripted' | 'pi' | 'mcp' | 'model';

export interface DemoParams {
  agent: AgentKind;
  /** Characters' ids: the names first, then villager_N. */
  ids: string[];
  seed: string;
  inspector: boolean;
  /** With `?agent=mcp` or `?agent=model`, the character lent: `?character=<id>`, else cleo when the page has her, else the first. */
  character: string;
  params: URLSearchParams;
}

/** `?agent=scripted|pi|mcp|model`, `?character=<id>` (mcp, model), `?characters=N` (1 to MAX_CHARACTERS), `?seed=S`, `?inspector=0`. */
export function demoParams(defaults: { characters: number; seed: string }): DemoParams {
  const params = new URLSearchParams(location.search);
  const count = Math.max(1, Math.min(MAX_CHARACTERS, Number.parseInt(params.get('characters') ?? '', 10) || defaults.characters));
  const agent = params.get('agent');
  const ids = Array.from({ length: count }, (_, i) => (i < NAMES.length ? NAMES[i]! : `villager_${i + 1}`));
  return {
    agent: agent === 'pi' || agent === 'mcp' || agent === 'model' ? agent : 'scripted',
    ids,
    seed: params.get('seed') ?? defaults.seed,
    inspector: params.get('inspector') !== '0',
    character: params.get('character') ?? (ids.includes('cleo') ? 'cleo' : ids[0]!),
    params,
  };
}

/** The page's errors, from the window and from what the page reports itself; each is shown on the page too. */
export function pageErrors(): { errors: string[]; report(error: unknown): void } {
  const errors: string[] = [];
  const message = (error: unknown): string => String((error as Error | undefined)?.message ?? error);
  const keep = (text: string): void => {
    errors.push(text);
    pageStatus(`error: ${text}`, text);
  };
  window.addEventListener('error', (event) => keep(String(event.message)));
  window.addEventListener('unhandledrejection', (event) => keep(message(event.reason)));
  return {
    errors,
    report(error) {
      keep(message(error));
      console.error(error);
    },
  };
}

/** Counts the capsule's calls that completed ok; the capsule's own errors go to `errors`. */
export function okCalls(capsule: Capsule, errors: string[]): () => number {
  let ok = 0;
  capsule.on('call', (record) => {
    if (record.result.ok) ok++;
  });
  capsule.on('error', (error) => errors.push(`capsule: ${error.message}`));
  return () => ok;
}

export interface PagePilot {
  /** Who the page is, as pi sees the sender. */
  page: { id: string; label: string };
  /** The character's world and goal, for its briefing. */
  description: string;
  goal: string;
}

/**
 * pi drives the character `id`: pi-peers over a WebSocket to this page's own origin at /pi. When pi
 * cannot be reached it rejects naming the character and the reason; while it drives, the page shows
 * what stops it (the pilot paused, stopped, or its backend failing) until it decides again.
 */
export async function pilotOnPage(client: AgentClient, id: string, options: PagePilot): Promise<Pilot> {
  let peers: PeersClient;
  try {
    peers = await PeersClient.connect(await ownSocket('/pi', ['pi-peers.v1']), { from: { ...options.page, host: location.host } });
  } catch (error) {
    throw new Error(`${id} stands idle: pi could not connect — ${(error as Error).message}`);
  }
  const pilot = new Pilot({
    client,
    backend: new PeersBackend(peers),
    character: { id, name: id[0]!.toUpperCase() + id.slice(1), description: options.description, goal: options.goal },
  });
  const key = `pi: ${id}`;
  pilot.on('error', ({ message }) => pageStatus(key, `pi (${id}): ${message}`));
  pilot.on('pause', ({ message }) => pageStatus(key, `pi (${id}) paused: ${message}`));
  pilot.on('stop', ({ reason }) => pageStatus(key, `pi (${id}) stopped: ${reason}; ${id} stands idle`));
  pilot.on('resume', () => pageStatus(key, undefined));
  pilot.on('decision', () => pageStatus(key, undefined));
  pilot.start();
  return pilot;
}

/**
 * Lends the character `id` to the MCP clients of a gateway: a WebSocket to this page's own origin at
 * /characters/<id>, which the demo server joins to the gateway's, adding the key there. The page
 * offers only `aicc.v0.1`; the caller connects its capsule's session for `id` over the link.
 */
export async function lendOnPage(id: string): Promise<Link> {
  try {
    return await ownSocket(`/characters/${encodeURIComponent(id)}`, ['aicc.v0.1']);
  } catch (error) {
    throw new Error(`${id} stands idle: the gateway could not take ${id} — ${(error as Error).message}`);
  }
}

/**
 * A WebSocket to `path` on this page's own origin, as a Link once open. A socket refused before it
 * opened rejects with the server's reason (the demo server says what is missing and how to start it).
 */
async function ownSocket(path: string, protocols: string[]): Promise<Link> {
  // The DOM's WebSocket, seen as the part of it a link uses.
  const Socket = WebSocket as unknown as WebSocketConstructor;
  const socket = new Socket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`, protocols);
  socket.binaryType = 'arraybuffer';
  await new Promise<void>((resolve, reject) => {
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      resolve();
    });
    socket.addEventListener('close', (event: CloseEvent) => {
      if (!opened) reject(new Error(event.reason === '' ? `the demo server's ${path} closed (code ${event.code})` : event.reason));
    });
  });
  return webSocketLink(socket);
}
