// Finds pi agents by their discovery files, `$PI_PEERS_HOME/agents/<id>.json` (AgentEntry in
// schemas/pi-peers-1.0.schema.json). Read-only: entries that do not fit are skipped, never pruned —
// they may belong to another runtime or a newer writer.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VersionRange } from '../../pi/peersProtocol.js';

export interface AgentEntry {
  schemaVersion: string;
  protocol: VersionRange;
  id: string;
  label: string;
  host: string;
  pid: number;
  cwd: string;
  /** A Unix socket (a named pipe on Windows). */
  endpoint: string;
  /** Secret: goes only into the hello the gateway sends to this agent. */
  token: string;
  startedAt: string;
  runtime?: string;
  sessionName?: string;
  piSessionId?: string;
  via?: string;
  remoteRuntime?: string;
  piVersion?: string;
}

export interface Discovery {
  agents: AgentEntry[];
  /** Files passed over, with why; never the file's content. */
  skipped: Array<{ file: string; reason: string }>;
}

export interface DiscoveryOptions {
  /** The runtime this gateway runs on (default process.platform); other runtimes' entries are skipped. */
  runtime?: string;
}

const REQUIRED_STRINGS = ['schemaVersion', 'id', 'label', 'host', 'cwd', 'endpoint', 'token', 'startedAt'] as const;

/** Reads every entry in `<peersHome>/agents`. A missing folder is no agents, not an error. */
export function discoverAgents(peersHome: string, options: DiscoveryOptions = {}): Discovery {
  const runtime = options.runtime ?? process.platform;
  const folder = join(peersHome, 'agents');
  const result: Discovery = { agents: [], skipped: [] };
  let files: string[];
  try {
    files = readdirSync(folder)
      .filter((file) => file.endsWith('.json'))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw new Error(`discoverAgents: cannot read ${folder} (${(error as NodeJS.ErrnoException).code ?? String(error)}); check PI_PEERS_HOME`);
  }
  for (const file of files) {
    const entry = readEntry(join(folder, file));
    if (typeof entry === 'string') result.skipped.push({ file, reason: entry });
    else if (entry.runtime !== undefined && entry.runtime !== runtime) result.skipped.push({ file, reason: `runtime ${entry.runtime}, not ${runtime}` });
    else result.agents.push(entry);
  }
  return result;
}

/** The entry with this id, or undefined. */
export function findAgent(peersHome: string, id: string, options: DiscoveryOptions = {}): AgentEntry | undefined {
  return discoverAgents(peersHome, options).agents.find((agent) => agent.id === id);
}

/** Parses one file into an entry, or says why it is not one (without quoting it: it holds a token). */
function readEntry(path: string): AgentEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return error instanceof SyntaxError ? 'not JSON' : `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const entry = value as Record<string, unknown>;
  for (const field of REQUIRED_STRINGS) {
    if (typeof entry[field] !== 'string' || entry[field] === '') return `"${field}" is missing or not a string`;
  }
  if (!Number.isInteger(entry.pid)) return '"pid" is missing or not an integer';
  const protocol = entry.protocol as Partial<VersionRange> | undefined;
  if (!protocol || typeof protocol.version !== 'string' || typeof protocol.minVersion !== 'string') return '"protocol" needs "version" and "minVersion"';
  if (entry.runtime !== undefined && typeof entry.runtime !== 'string') return '"runtime" is not a string';
  return entry as unknown as AgentEntry;
}
