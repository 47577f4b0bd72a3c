// The gateway's four modes (gatewayMode.ts), each made from its target and checked once: what a
// page's path may ask for, what is done with a page let in, and what starts once the gateway listens.

import { CapsuleError } from '../../base/errors.js';
import { CLOSE, DAEMON_SUBPROTOCOL, type Refusal, SUBPROTOCOL } from './access.js';
import { CHARACTERS_PATH, type CharacterSessions, characterOfPath, MCP_PATH } from './characters.js';
import { checkDaemonRelayOptions, type DaemonRelayOptions, relayDaemon } from './daemonRelay.js';
import {
  DEFAULT_MAX_PAYLOAD,
  GATEWAY_HOST,
  type GatewayContext,
  type GatewayMode,
  type GatewayTarget,
  HOSTED_MCP_SERVER,
  type HostStarter,
  type HostTarget,
} from './gatewayMode.js';
import { serveHost } from './hostSession.js';
import { ModelDrivers, type ModelTarget } from './modelDrivers.js';
import type { PiHost } from './piHost.js';
import { relayBrowser, type RelayOptions } from './relay.js';
import { SessionOwners } from './sessionOwners.js';

/** What the gateway's options give a mode. */
export interface ModeOptions {
  key: string;
  /** Whether the gateway also serves MCP (pages lend characters to MCP clients). */
  mcp: boolean;
  /** The gateway's own maxPayload option, if given. */
  maxPayload?: number;
}

/** The mode `target` asks for; throws an AICC_INVALID_OPTION naming what is wrong with it. */
export function gatewayModeOf(target: GatewayTarget, options: ModeOptions): GatewayMode {
  const problem = (why: string | undefined): void => {
    if (why !== undefined) throw new CapsuleError('AICC_INVALID_OPTION', `startGateway: ${why}`);
  };
  switch (target.kind) {
    case 'relay':
      return relayMode(target, options);
    case 'daemon':
      problem(checkDaemonRelayOptions(target));
      return daemonMode(target, options);
    case 'host':
      problem(checkHostTarget(target, options.mcp));
      return hostMode(target, options);
    case 'model':
      problem(checkModelTarget(target, options.mcp));
      return modelMode(target, options);
  }
}

/** Refuses any path but `/`, saying what this gateway serves. */
function rootOnly(serves: string): (path: URL) => string | Refusal {
  return (path) => (path.pathname === '/' ? '' : { code: CLOSE.notFound, reason: `this gateway ${serves}: connect to /` });
}

function relayMode(target: RelayOptions, options: ModeOptions): GatewayMode {
  return {
    subprotocol: SUBPROTOCOL,
    endpoint: 'pi-peers 1.0',
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    drivesCharacters: false,
    // Which agent the page wants: `/agents/<id>` or `/?agent=<id>`.
    route: (path) => {
      const match = /^\/agents\/([^/]+)\/?$/.exec(path.pathname);
      let id: string | null = null;
      try {
        id = match?.[1] !== undefined ? decodeURIComponent(match[1]) : path.pathname === '/' ? path.searchParams.get('agent') : null;
      } catch {
        id = null;
      }
      if (id === null || id === '' || id.length > 200) return { code: CLOSE.notFound, reason: 'name the agent: connect to /agents/<id> or /?agent=<id>' };
      return id;
    },
    accept: (browser, agent) => relayBrowser(browser, agent, target),
    start: async () => ({ serving: 'relaying to the agents in PI_PEERS_HOME' }),
    close: async () => undefined,
  };
}

function daemonMode(target: DaemonRelayOptions, options: ModeOptions): GatewayMode {
  // A record over the line limit but under this is read and answered with `line_too_large` before the close (GatewayOptions.maxPayload).
  const maxPayload = options.maxPayload ?? 2 * (target.maxLineBytes ?? DEFAULT_MAX_PAYLOAD);
  // One ledger of session owners for all the pages of this gateway (sessionOwners.ts).
  const shared = { owners: new SessionOwners(), maxMessageBytes: maxPayload, redact: (message: string) => message.replaceAll(options.key, 'the gateway key') };
  return {
    subprotocol: DAEMON_SUBPROTOCOL,
    endpoint: 'pi-daemon protocol v2',
    maxPayload,
    drivesCharacters: false,
    route: rootOnly('relays one pi daemon'),
    accept: (browser) => relayDaemon(browser, target, shared),
    start: async () => ({ serving: `relaying pi-daemon protocol v2 to ${target.socketPath}${target.admin === true ? ' (admin: pages may drain it)' : ''}` }),
    close: async () => undefined,
  };
}

function hostMode(target: HostTarget, options: ModeOptions): GatewayMode {
  // With a starter: undefined until pi has started (pages are asked to come back).
  let host: PiHost | undefined = typeof target.host === 'function' ? undefined : target.host;
  return {
    subprotocol: SUBPROTOCOL,
    endpoint: 'pi-peers 1.0',
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    drivesCharacters: false,
    get host() {
      return host;
    },
    route: rootOnly('hosts one pi'),
    accept: (browser) => {
      if (host !== undefined) serveHost(browser, host, target);
      else browser.close(CLOSE.tryAgainLater, 'the hosted pi is starting; try again in a moment');
    },
    start: async (gateway) => {
      host ??= await startHost(target, gateway);
      return { serving: 'hosting pi' };
    },
    close: async () => undefined,
  };
}

function modelMode(target: ModelTarget, options: ModeOptions): GatewayMode {
  let drivers: ModelDrivers | undefined;
  return {
    subprotocol: SUBPROTOCOL,
    endpoint: `capsule sessions lent at ${CHARACTERS_PATH}<id>`,
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    drivesCharacters: true,
    route: () => ({ code: CLOSE.notFound, reason: MODEL_ROUTE }),
    accept: (browser) => browser.close(CLOSE.notFound, MODEL_ROUTE),
    start: async (gateway) => {
      drivers = new ModelDrivers(gateway.characters as CharacterSessions, target, gateway.log);
      return {
        serving: `driving the characters pages lend with ${target.name}`,
        notes: [`aicc gateway: pages lend characters at ws://${GATEWAY_HOST}:${gateway.port}${CHARACTERS_PATH}<id>; the model drives each`],
      };
    },
    close: async (reason) => drivers?.close(reason),
  };
}

/** Where a page connects in model mode (anything else is refused with this). */
const MODEL_ROUTE = `this gateway drives the characters pages lend it with its model: connect a capsule session to ${CHARACTERS_PATH}<id>`;

/** What is wrong with a model target, if anything. */
function checkModelTarget(target: ModelTarget, mcp: boolean): string | undefined {
  if (typeof target.turn !== 'function') return 'a model target needs turn, a ModelTurn (piAiModel(…).turn)';
  if (mcp) return 'a model target drives the lent characters itself: MCP clients cannot drive them too (leave mcp out)';
  return undefined;
}

/** What is wrong with a host target's MCP option, if anything. */
function checkHostTarget(target: HostTarget, mcp: boolean): string | undefined {
  if (target.mcpCharacter === undefined) return undefined;
  if (!mcp) return "mcpCharacter needs mcp: true (the hosted pi reaches the character through this gateway's /mcp/<id>)";
  if (typeof target.host !== 'function')
    return 'mcpCharacter needs the host target as a starter ((mcpServers) => PiHost.start({ ...options, mcpServers })): a pi already running cannot be given MCP servers';
  const id = characterOfPath(`${MCP_PATH}${target.mcpCharacter}`, MCP_PATH);
  return typeof id === 'string' && id === target.mcpCharacter
    ? undefined
    : `mcpCharacter ${JSON.stringify(target.mcpCharacter.slice(0, 80))} is not a character id (1 to 64 letters, digits, _ . or -)`;
}

/**
 * Starts the hosted pi of a starter target, now that the port is known. With mcpCharacter, pi's MCP
 * server is this gateway's endpoint for the character, and each time a page lends the character pi
 * is told to reconnect (its connect at start found a 404 if no page lent it yet). The key goes only
 * into the entry handed to the starter (which PiProcess writes to a private 0600 file).
 */
async function startHost(target: HostTarget, gateway: GatewayContext): Promise<PiHost> {
  const character = target.mcpCharacter;
  const servers =
    character === undefined
      ? undefined
      : {
          [HOSTED_MCP_SERVER]: {
            url: `http://${GATEWAY_HOST}:${gateway.port}${MCP_PATH}${character}`,
            headers: { Authorization: `Bearer ${gateway.key}` },
            exposure: 'direct',
          },
        };
  let host: PiHost;
  try {
    host = await (target.host as HostStarter)(servers);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  if (character !== undefined && gateway.characters !== undefined) {
    // A pilot driving the character asks (get_state): it then briefs pi to call the tools itself.
    host.setNativeCharacters([character]);
    const characters = gateway.characters;
    const reconnect = (): void => {
      void host
        .reconnectMcp(HOSTED_MCP_SERVER)
        .then((took) => gateway.log(`aicc gateway: ${character} is lent; the hosted pi ${took ? 'reconnected to' : 'could not reconnect to'} its tools`));
    };
    characters.onChange((lent, client) => {
      if (lent === character && client !== undefined && host.exit === undefined) reconnect();
    });
    // Lent while pi was starting: pi's own connect may have come before the page.
    if (characters.get(character) !== undefined) reconnect();
    else gateway.log(`aicc gateway: the hosted pi gets ${character}'s tools once a page lends ${character} at ${CHARACTERS_PATH}${character}`);
  }
  return host;
}
