// `aicc gateway`'s arguments: the mode, its flags and the environment (the key), checked into
// GatewayArgs, or the one-line complaint about them.

import { checkKeyFormat, normalizeOrigin } from '../gateway/access.js';
import { GATEWAY_HOST } from '../gateway/server.js';
import { readArgs, wholeNumber } from './args.js';

export interface GatewayArgs {
  mode: 'relay' | 'host' | 'daemon' | 'model';
  /** model mode: an OpenAI-compatible server. */
  baseUrl?: string;
  /** model mode: the longest answer. */
  maxTokens?: number;
  /** model mode: requests in flight at once. */
  maxConcurrent?: number;
  /** daemon mode: the daemon's Unix socket. */
  daemonSocket?: string;
  /** daemon mode: pages may open sessions stored on the host. */
  storedSessions?: boolean;
  /** daemon mode: pages may drain the daemon and read its host-wide status. */
  admin?: boolean;
  /** --mcp: pages lend characters, MCP clients drive them. */
  mcp?: boolean;
  /** host mode with --mcp: the hosted pi calls this character's tools natively. */
  mcpCharacter?: string;
  /** --mcp-idle-s: idle MCP sessions close after this many ms. */
  mcpIdleMs?: number;
  origins: string[];
  key?: string;
  port: number;
  maxFrame?: number;
  peersHome?: string;
  piBin?: string;
  piNode?: string;
  provider?: string;
  model?: string;
  systemPrompt?: string;
  agentDir?: string;
  label?: string;
}

/** String options and the GatewayArgs field each sets. */
const VALUE_FLAGS = {
  key: 'key',
  daemon: 'daemonSocket',
  'peers-home': 'peersHome',
  'pi-bin': 'piBin',
  'pi-node': 'piNode',
  provider: 'provider',
  model: 'model',
  'system-prompt': 'systemPrompt',
  'agent-dir': 'agentDir',
  label: 'label',
  'mcp-character': 'mcpCharacter',
  'base-url': 'baseUrl',
} as const;

/** Parses the arguments; a string is the one-line complaint about them. */
export function parseGatewayArgs(argv: string[], env: NodeJS.ProcessEnv = {}): GatewayArgs | string {
  // Daemon mode is chosen by its flag, `aicc gateway --daemon SOCKET`, so it has no mode word.
  const daemon = argv.some((arg) => arg === '--daemon' || arg.startsWith('--daemon='));
  const [mode, ...rest] = daemon && argv[0]?.startsWith('--') === true ? ['daemon' as const, ...argv] : argv;
  if (mode !== 'relay' && mode !== 'host' && mode !== 'daemon' && mode !== 'model') {
    return mode === undefined ? 'choose a mode: relay, host, model or --daemon SOCKET' : `unknown mode "${mode}"; choose relay, host, model or --daemon SOCKET`;
  }
  if (daemon && mode !== 'daemon') return `--daemon is a mode of its own: drop "${mode}"`;
  const read = readArgs(rest, {
    options: {
      ...Object.fromEntries(Object.keys(VALUE_FLAGS).map((name) => [name, { type: 'string' as const }])),
      origin: { type: 'string', multiple: true },
      port: { type: 'string' },
      'max-frame': { type: 'string' },
      'mcp-idle-s': { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-concurrent': { type: 'string' },
      host: { type: 'string' },
      'daemon-stored-sessions': { type: 'boolean' },
      'daemon-admin': { type: 'boolean' },
      mcp: { type: 'boolean' },
    },
  });
  if (typeof read === 'string') return read.replace('every option is --NAME VALUE', 'a mode (relay, host) comes first, and every option is --NAME VALUE');
  const values = read.values as Record<string, string | undefined> & {
    origin?: string[];
    'daemon-stored-sessions'?: boolean;
    'daemon-admin'?: boolean;
    mcp?: boolean;
  };
  const args: GatewayArgs = { mode, origins: values.origin ?? [], port: 0 };
  if (values['daemon-stored-sessions'] === true) args.storedSessions = true;
  if (values['daemon-admin'] === true) args.admin = true;
  if (values.mcp === true) args.mcp = true;
  for (const [flag, max, min] of [
    ['port', 65535, 0],
    ['max-frame', 64 * 1024 * 1024, 1],
    ['mcp-idle-s', 86_400, 1],
    ['max-tokens', 1_000_000, 1],
    ['max-concurrent', 64, 1],
  ] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    if (mode !== 'model' && (flag === 'max-tokens' || flag === 'max-concurrent')) return `--${flag} is for model mode`;
    const n = wholeNumber(`--${flag}`, text, min, max);
    if (typeof n === 'string') return n;
    if (flag === 'port') args.port = n;
    else if (flag === 'mcp-idle-s') args.mcpIdleMs = n * 1000;
    else if (flag === 'max-tokens') args.maxTokens = n;
    else if (flag === 'max-concurrent') args.maxConcurrent = n;
    else args.maxFrame = n;
  }
  if (args.mcpIdleMs !== undefined && values.mcp !== true) return '--mcp-idle-s goes with --mcp';
  if (values.host !== undefined && values.host !== GATEWAY_HOST) return `--host: the gateway listens on ${GATEWAY_HOST} only`;
  for (const [flag, field] of Object.entries(VALUE_FLAGS)) {
    const text = values[flag];
    if (text !== undefined) args[field] = text;
  }
  const keyFrom = args.key !== undefined ? '--key' : 'AICC_GATEWAY_KEY';
  if (args.key === undefined && env.AICC_GATEWAY_KEY !== undefined) args.key = env.AICC_GATEWAY_KEY;
  if (args.origins.length === 0) return 'name at least one --origin whose pages may connect, e.g. --origin http://localhost:5173';
  for (const origin of args.origins) {
    const problem = normalizeOrigin(origin);
    if (problem instanceof Error) return `--origin ${problem.message}`;
  }
  if (args.key === undefined || args.key === '') return 'no gateway key: set AICC_GATEWAY_KEY (or pass --key)';
  const keyProblem = checkKeyFormat(args.key);
  if (keyProblem !== undefined) return `${keyFrom}: ${keyProblem}`;
  if (mode === 'daemon' && args.peersHome !== undefined) return '--peers-home is for relay mode';
  if (mode === 'daemon' && args.daemonSocket === '') return "--daemon expects the daemon's Unix socket path";
  if (mode !== 'daemon' && args.storedSessions === true) return '--daemon-stored-sessions is for --daemon mode';
  if (mode !== 'daemon' && args.admin === true) return '--daemon-admin is for --daemon mode';
  if (mode !== 'daemon' && args.peersHome === undefined && env.PI_PEERS_HOME !== undefined) args.peersHome = env.PI_PEERS_HOME;
  if (mode === 'relay' && (args.peersHome === undefined || args.peersHome === ''))
    return "relay needs the agents' folder: set PI_PEERS_HOME or pass --peers-home";
  if (args.mcpCharacter !== undefined && args.mcp !== true) return '--mcp-character needs --mcp (the hosted pi reaches the character through the gateway)';
  const flag = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (mode === 'model') {
    if (args.provider === undefined || args.model === undefined)
      return 'model mode needs --provider and --model (e.g. --provider anthropic --model claude-haiku-4-5)';
    if (args.mcp === true) return 'model mode drives the lent characters itself: MCP clients cannot drive them too (leave out --mcp)';
    if (args.baseUrl !== undefined && !/^https?:\/\//.test(args.baseUrl))
      return `--base-url takes an http:// or https:// URL; got ${JSON.stringify(args.baseUrl.slice(0, 80))}`;
    const other = (['piBin', 'piNode', 'agentDir', 'label', 'mcpCharacter'] as const).find((name) => args[name] !== undefined);
    if (other !== undefined) return `${flag(other)} is for host mode`;
    return args;
  }
  if (args.baseUrl !== undefined) return '--base-url is for model mode';
  const hostOnly = (['piBin', 'piNode', 'provider', 'model', 'systemPrompt', 'agentDir', 'label', 'mcpCharacter'] as const).find(
    (name) => args[name] !== undefined,
  );
  if (mode !== 'host' && hostOnly !== undefined) return `${flag(hostOnly)} is for host mode`;
  return args;
}
