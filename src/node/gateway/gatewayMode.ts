// What a gateway does with the pages it lets in, one mode per target: relay (pi agents on this
// machine, pi-peers 1.0), host (a pi of its own), daemon (a pi-daemon, protocol v2), model (the
// gateway's own model drives the characters pages lend). startGateway checks every upgrade alike
// (Origin, key, capacity), logs, and hands each page that passed to its mode; a mode never sees a
// refused page, and the gateway never asks which mode it has.

import type { Refusal } from './access.js';
import type { BrowserConnection } from './browser.js';
import type { CharacterSessions } from './characters.js';
import type { DaemonRelayOptions } from './daemonRelay.js';
import type { HostSessionOptions } from './hostSession.js';
import type { ModelTarget } from './modelDrivers.js';
import type { PiHost } from './piHost.js';
import type { RelayOptions } from './relay.js';

/** Only the loopback interface: the gateway is for pages and programs on this machine. */
export const GATEWAY_HOST = '127.0.0.1';
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Starts the hosted pi once the gateway listens, with the MCP servers to give it (see HostTarget). */
export type HostStarter = (mcpServers: Record<string, object> | undefined) => Promise<PiHost>;

export interface HostTarget extends HostSessionOptions {
  kind: 'host';
  /** The hosted pi, or how to start it: a starter is called once the gateway listens (its port known). */
  host: PiHost | HostStarter;
  /**
   * With `mcp: true` and a starter: the hosted pi calls this lent character's tools natively, its
   * MCP config pointing at this gateway's `/mcp/<id>` with the key as bearer header (in a private
   * file, never in argv or a log line). pi connects at start and does not retry a 404, so when a
   * page lends the character (first or again) the gateway has pi reconnect (PiHost.reconnectMcp).
   */
  mcpCharacter?: string;
}

/** The name of the hosted pi's MCP server for mcpCharacter: the model sees `mcp__aicc__<tool>`. */
export const HOSTED_MCP_SERVER = 'aicc';

export type GatewayTarget = ({ kind: 'relay' } & RelayOptions) | HostTarget | ({ kind: 'daemon' } & DaemonRelayOptions) | ModelTarget;

/** What a mode may use of the gateway it runs in, once it listens. */
export interface GatewayContext {
  port: number;
  key: string;
  /** The characters pages lend (with mcp, or a mode that drives them). */
  characters: CharacterSessions | undefined;
  log: (line: string) => void;
  /** Closes the whole gateway (a mode that cannot start after all). */
  close(): Promise<void>;
}

export interface GatewayMode {
  /** The subprotocol pages speak to this mode (after the key's). */
  readonly subprotocol: string;
  /** What plain HTTP is told this endpoint is, e.g. `pi-peers 1.0`. */
  readonly endpoint: string;
  /** The largest WebSocket message taken, unless the gateway's options say. */
  readonly maxPayload: number;
  /** Whether the mode drives the characters pages lend (it needs them lent even without mcp). */
  readonly drivesCharacters: boolean;
  /** The hosted pi, once there is one (host mode). */
  readonly host?: PiHost | undefined;
  /** What the page's path asks for (an agent's id; '' for the one thing served), or why it is refused. */
  route(path: URL): string | Refusal;
  /** Takes a page that passed every check, with its route. */
  accept(browser: BrowserConnection, route: string): void;
  /** Starts what needs the gateway listening (its port known); resolves with what it serves, for the log, and any more lines to log. */
  start(context: GatewayContext): Promise<{ serving: string; notes?: string[] }>;
  /** Lets go of what the mode holds; the pages' connections are the gateway's to close. */
  close(reason: string): Promise<void>;
}
