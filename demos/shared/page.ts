// What the browser demo pages share: their URL parameters, the villagers' names, the page errors
// they keep, the `window.aiccDemo` contract the browser tests and the frame benchmark read, and the
// two ways a character leaves the page's scripts — pi driving it through the pilot over the page's
// own origin (/pi), or the page lending it to the MCP clients of a gateway (/characters/<id>). The
// demo server proxies both to the gateway and adds the key there: it never reaches the page.

import type { AgentClient } from '../../src/agent/agentClient.js';
import { PeersBackend } from '../../src/agent/pilot/peersBackend.js';
import { Pilot } from '../../src/agent/pilot/pilot.js';
import type { Link } from '../../src/links/link.js';
import { connectWebSocket } from '../../src/links/websocket.js';
import { PeersClient } from '../../src/pi/peersClient.js';
import type { Capsule } from '../../src/runtime/capsule.js';

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
}

/** The most characters a page will make, whatever the URL asks (the benchmark uses 50). */
export const MAX_CHARACTERS = 100;
const NAMES = ['ada', 'bram', 'cleo', 'dov', 'edda', 'finn', 'greta', 'hugo'];

/** Who drives the page's agent character: scripts, pi (through the pilot), or an MCP client (through the gateway). */
export type AgentKind = 'scripted' | 'pi' | 'mcp';

export interface DemoParams {
  agent: AgentKind;
  /** Characters' ids: the names first, then villager_N. */
  ids: string[];
  seed: string;
  inspector: boolean;
  /** With `?agent=mcp`, the character lent: `?character=<id>`, else cleo when the page has her, else the first. */
  character: string;
  params: URLSearchParams;
}

/** `?agent=scripted|pi|mcp`, `?character=<id>` (mcp), `?characters=N` (1 to MAX_CHARACTERS), `?seed=S`, `?inspector=0`. */
export function demoParams(defaults: { characters: number; seed: string }): DemoParams {
  const params = new URLSearchParams(location.search);
  const count = Math.max(1, Math.min(MAX_CHARACTERS, Number.parseInt(params.get('characters') ?? '', 10) || defaults.characters));
  const agent = params.get('agent');
  const ids = Array.from({ length: count }, (_, i) => (i < NAMES.length ? NAMES[i]! : `villager_${i + 1}`));
  return {
    agent: agent === 'pi' || agent === 'mcp' ? agent : 'scripted',
    ids,
    seed: params.get('seed') ?? defaults.seed,
    inspector: params.get('inspector') !== '0',
    character: params.get('character') ?? (ids.includes('cleo') ? 'cleo' : ids[0]!),
    params,
  };
}

/** The page's errors, from the window and from what the page reports itself. */
export function pageErrors(): { errors: string[]; report(error: unknown): void } {
  const errors: string[] = [];
  const message = (error: unknown): string => String((error as Error | undefined)?.message ?? error);
  window.addEventListener('error', (event) => errors.push(String(event.message)));
  window.addEventListener('unhandledrejection', (event) => errors.push(message(event.reason)));
  return {
    errors,
    report(error) {
      errors.push(message(error));
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

/** pi drives the character `id`: pi-peers over a WebSocket to this page's own origin at /pi. */
export async function pilotOnPage(client: AgentClient, id: string, options: PagePilot): Promise<Pilot> {
  const link = await connectWebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/pi`, { protocols: ['pi-peers.v1'] });
  const peers = await PeersClient.connect(link, { from: { ...options.page, host: location.host } });
  const pilot = new Pilot({
    client,
    backend: new PeersBackend(peers),
    character: { id, name: id[0]!.toUpperCase() + id.slice(1), description: options.description, goal: options.goal },
  });
  pilot.start();
  return pilot;
}

/**
 * Lends the character `id` to the MCP clients of a gateway: a WebSocket to this page's own origin at
 * /characters/<id>, which the demo server joins to the gateway's, adding the key there. The page
 * offers only `aicc.v0.1`; the caller connects its capsule's session for `id` over the link.
 */
export async function lendOnPage(id: string): Promise<Link> {
  return connectWebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/characters/${encodeURIComponent(id)}`, {
    protocols: ['aicc.v0.1'],
  });
}
