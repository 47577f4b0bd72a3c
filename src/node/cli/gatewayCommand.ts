// `aicc gateway`: joins browser pages to the pi coding agent over pi-peers 1.0, in relay mode
// (pi agents that advertise themselves in $PI_PEERS_HOME) or host mode (a pi run here), or over
// pi-daemon protocol v2 in daemon mode (a pi daemon's Unix socket); or drives the characters pages
// lend it with a model it reaches itself, in model mode (pi-ai: the key stays on this side).

import { parseGatewayArgs, type GatewayArgs } from './gatewayArgs.js';
import { reportDaemonSocket } from './daemonSocket.js';
import type { CliIo } from './cliIo.js';

export { parseGatewayArgs, type GatewayArgs } from './gatewayArgs.js';
import { DAEMON_SUBPROTOCOL, MIN_KEY_LENGTH } from '../gateway/access.js';
import { DAEMON_HIGH_WATER_BYTES } from '../gateway/daemonRelay.js';
import { PiHost, type PiHostOptions } from '../gateway/piHost.js';
import { MODEL_GATEWAY_CONCURRENCY } from '../gateway/modelDrivers.js';
import { DEFAULT_MAX_PAYLOAD, startGateway, type GatewayTarget } from '../gateway/server.js';
import { piAiModel } from '../model/piAi.js';
import { userMessage } from './userMessage.js';

const HELP = `aicc gateway — join browser pages to the pi coding agent (pi-peers 1.0, pi-daemon v2) or a model

Usage:
  aicc gateway relay --origin ORIGIN [options]   relay to the pi agents in $PI_PEERS_HOME
  aicc gateway host  --origin ORIGIN [options]   run pi --mode rpc here and serve it
  aicc gateway --daemon SOCKET --origin ORIGIN [options]
                                                 relay pi-daemon protocol v2 to a daemon's socket
  aicc gateway model --provider P --model M --origin ORIGIN [options]
                                                 drive the characters pages lend with a model
Every mode needs a key, which pages present: put it in AICC_GATEWAY_KEY (or pass --key), e.g.
  AICC_GATEWAY_KEY=$(openssl rand -hex 24) aicc gateway host --origin http://localhost:5173

Modes
  relay   A page reaches a pi agent that advertises itself in $PI_PEERS_HOME/agents/<id>.json
          (entries written on another platform are skipped), picking it by id:
            ws://127.0.0.1:PORT/agents/<id>    or    ws://127.0.0.1:PORT/?agent=<id>
          The gateway adds the agent's token to the page's hello. The token never reaches the
          page or a log line, and a hello that carries a token is refused.
  host    The gateway runs one pi (pi --mode rpc with no tools, session, extensions, skills,
          prompt templates, themes or context files) and serves it at ws://127.0.0.1:PORT/ :
          hello, get_state (idle, settled = runs completed), get_last_assistant_text, abort, and
          prompt / steer / follow_up deliveries. A delivery id seen in the last ten minutes gets
          its first answer again and is not delivered twice; more than 3 hops is refused
          (hop_limit). While pi is idle a steer or follow_up is delivered as a prompt.
          pi runs with a private temporary HOME, PI_OFFLINE=1, PI_TELEMETRY=0,
          PI_SKIP_VERSION_CHECK=1, and without this process's AICC_* variables.
  --daemon SOCKET
          A page speaks pi-daemon protocol v2 to the daemon listening on the Unix socket
          SOCKET (pi-daemon serve --socket SOCKET) at ws://127.0.0.1:PORT/ : one daemon
          connection per page connection, each closed when the other closes. Each text frame
          is one command (one JSON object, up to --max-frame bytes, default the daemon's 1 MiB
          line limit) and each daemon line one frame back, byte for byte. A frame is answered
          as the daemon answers such a line, with ok:false and the daemon's code: text that is
          not JSON gets invalid_json and the connection closes (4400); a JSON value that is not
          an object gets invalid_field and the connection stays; a record over the line limit,
          or a message over twice it, gets line_too_large and a close (1009); text that is not
          UTF-8 gets invalid_utf8 and a close (1007); an empty frame gets nothing; a requestId
          still in flight gets duplicate_request_id.
          Sessions: pages share the daemon, and each page reaches only the sessions its own
          connection opened. A session belongs to the page connection whose open the daemon
          answered ok, until that connection ends; then the session stays on the daemon and
          the next page that opens it owns it (a page that reconnects opens its sessions
          again, then attaches). Refused as denied_by_gateway, with error.details.rule:
            attach, detach, wake, steer, followUp, abort, close or status of a session this
            connection has not opened (not_opened), or before its open was answered (opening);
            an open, of any generation, of a session another page owns (other_page);
            drain, status without a sessionId (every session on the host) and operations the
            gateway does not know (admin_only, unknown_operation), unless --daemon-admin.
          A handshake's host snapshot lists only the page's own sessions. A page never gets
          another session's events: the daemon sends events only to a connection attached to
          the session. Two rules for open (denied_by_gateway too): payload.resources.tools must
          be "none", so a page cannot give the model the host's filesystem tools (host_tools);
          and, without --daemon-stored-sessions, the session must be a memory one (no path,
          sessionDir or agentDir), so a page cannot reach the host's stored sessions
          (stored_sessions). Commands are otherwise checked by the daemon, not the gateway.
          A daemon that is not there gets the page a daemon_unavailable response (retryable)
          and a close; at start a warning says so, and a SOCKET that is a file or a folder is
          refused. When a page stops reading, the gateway stops reading the daemon once
          ${DAEMON_HIGH_WATER_BYTES} bytes wait for the page (and the other way round), so
          memory stays bounded.

  model   Pages lend characters: a page connects its capsule's session for one character to
          ws://127.0.0.1:PORT/characters/<id> (subprotocols aicc.v0.1 and aicc-key.<key>), and
          the gateway drives it with the model --provider/--model names, through pi's provider
          library (@earendil-works/pi-ai, or @mariozechner/pi-ai 0.73 on Node 20, installed
          beside aicc-capsule): the character's tools are the model's tools, its news the
          model's messages. The provider's key is read here — its environment variable (e.g.
          ANTHROPIC_API_KEY) or pi's credential store — and never reaches a page, a log line or
          an error. --base-url points it at any OpenAI-compatible server (a local model). One
          page per character; a page that leaves stops its character's model. Stderr gets a
          line per decision: how it ended, its calls, time and tokens.

Connecting from a page
  const ws = new WebSocket(url, ['pi-peers.v1', 'aicc-key.' + KEY]);
  The key travels as a WebSocket subprotocol, never in the URL, and is compared in constant
  time; the gateway answers with pi-peers.v1 only. Then send pi-peers records as text frames,
  one JSON object each, hello first: {"id":"h1","type":"hello","protocol":{"version":"1.0","minVersion":"1.0"}}
  With --daemon, offer '${DAEMON_SUBPROTOCOL}' instead of 'pi-peers.v1', and send v2 commands,
  handshake first: {"protocolVersion":"2.0","requestId":"r1","operation":"handshake","payload":{}}

Options
  --origin ORIGIN     an origin whose pages may connect, e.g. http://localhost:5173
                      (repeatable, at least one; "null" admits file:// pages). A client that
                      sends no Origin is a program, not a page: it needs only the key.
  --key KEY           the gateway key (required, here or in AICC_GATEWAY_KEY):
                      ${MIN_KEY_LENGTH}+ characters of letters, digits and . _ ~ -
                      (e.g. \`openssl rand -hex 24\`). Prefer the environment variable
                      AICC_GATEWAY_KEY: other users can read a command line.
  --port N            the TCP port (default 0: a free one, printed at start)
  --host 127.0.0.1    the only address the gateway listens on; nothing else is accepted
  --max-frame BYTES   the largest message a page may send (default ${DEFAULT_MAX_PAYLOAD}); with
                      --daemon, the largest record either way (the daemon's line limit)
  --peers-home DIR    relay: where agents advertise themselves (default $PI_PEERS_HOME)
  --pi-bin PATH       host: the pi executable (default pi on PATH; a .js file runs with node)
  --pi-node PATH      host: the node that runs a .js pi (default this one; pi 1.x needs Node 22)
  --provider NAME     host: pi's model provider, as named in pi's models.json
  --model ID          host: pi's model
  --system-prompt T   host: pi's system prompt (who the character is)
  --agent-dir DIR     host: PI_CODING_AGENT_DIR for pi (default ~/.pi/agent)
  --label TEXT        host: the agent label pages see (default pi)
  --provider NAME     model: pi-ai's provider (anthropic, openai, openrouter, …; any name with
                      --base-url)
  --model ID          model: the model's id in the provider's catalog (or as the server names it)
  --base-url URL      model: an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1
  --max-tokens N      model: the longest answer, in tokens (default 512)
  --max-concurrent N  model: requests in flight at once, over every character (default ${MODEL_GATEWAY_CONCURRENCY});
                      rate limits and 5xx are retried with backoff
  --system-prompt T   model: the system prompt (default: a short one; the briefing says the rest)
  --daemon-stored-sessions
                      daemon: let pages open sessions stored on the host (session modes new,
                      open and continue, session paths, agentDir); without it a page may open
                      memory sessions only
  --daemon-admin      daemon: let pages drain the daemon (it then takes no new work until it
                      restarts, for every page), read its host-wide status and every session in
                      a handshake, and send operations the gateway does not know. For an
                      operator's page only; pages still reach only the sessions they opened
  --mcp               also serve MCP, in any mode: a game page lends a character by connecting
                      its capsule's session to ws://127.0.0.1:PORT/characters/<id> (subprotocols
                      aicc.v0.1 and aicc-key.<key>); MCP clients on this machine drive it over
                      Streamable HTTP at http://127.0.0.1:PORT/mcp/<id>, with the header
                      Authorization: Bearer <key>. Needs @modelcontextprotocol/sdk installed
  --mcp-idle-s N      with --mcp: an MCP session with no request waiting and no event stream
                      open is closed after N seconds (default 600), so clients that vanished
                      without DELETE do not hold the 16 session places
  --mcp-character ID  host, with --mcp: the hosted pi calls character ID's tools natively, as
                      mcp__aicc__<tool> (pi 1.x only; pi 0.73 is refused at start). pi gets a
                      private agent dir: links to the --agent-dir entries, and an mcp.json (mode
                      0600) naming only this gateway's /mcp/ID with the key; instead of --no-tools
                      it runs with --no-builtin-tools and only the built-in MCP extension. pi starts
                      once the gateway listens; when a page lends ID (before or after), the
                      gateway has pi reconnect to ID's tools
  -h, --help          this help

Output: the line "aicc gateway: listening on ws://127.0.0.1:PORT/" on standard output, then
one line per connection on standard error (origin, mode, close code and reason, records in and
out, duration; never a key or a token). Stops on Ctrl-C or SIGTERM.

Close codes a page may see
  1009 a message over --max-frame          1013 too many connections, or the page stopped reading
  4400 bad request (first record not a hello, no pi-peers.v1 subprotocol, ...)
  4401 no key, a wrong key, or a token in the hello     4403 origin not in --origin
  4404 unknown path or agent      4408 no hello within 10 s      4502 the agent or pi went away
  With --daemon: 4400 invalid_json (or no ${DAEMON_SUBPROTOCOL} subprotocol), 1009 line_too_large,
  1007 invalid_utf8, 4502 the daemon is not reachable or ended the connection.
  A page that offered only its key as a subprotocol sees the handshake fail (1006) instead of 4400:
  the gateway never echoes the key, and a browser fails a handshake that selects none of its offers.

Exit codes: 0 stopped by a signal, 1 failed (port taken, pi would not start or exited), 2 bad usage.
`;

/** What the command reads from its surroundings; tests pass their own. */
export interface GatewayRuntime {
  env?: NodeJS.ProcessEnv;
  /** Stops the gateway when aborted (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

export async function gatewayCommand(argv: string[], io: CliIo, runtime: GatewayRuntime = {}): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout.write(HELP);
    return 0;
  }
  const args = parseGatewayArgs(argv, runtime.env ?? process.env);
  if (typeof args === 'string') {
    io.stderr.write(`aicc gateway: ${args}; run \`aicc gateway --help\`\n`);
    return 2;
  }
  // A socket no daemon could listen on is refused; one not listened on yet is a warning (daemonSocket.ts says why).
  if (args.mode === 'daemon' && (await reportDaemonSocket(args.daemonSocket!, io.stderr)) !== undefined) return 2;
  const log = (line: string): void => void io.stderr.write(`${line}\n`);
  let host: PiHost | undefined;
  try {
    const piOptions: PiHostOptions = { ...hostOptions(args), inheritEnv: runtime.env ?? process.env };
    // With --mcp-character the gateway starts pi itself, once its port (pi's MCP address) is known.
    if (args.mode === 'host' && args.mcpCharacter === undefined) host = await PiHost.start(piOptions);
    const target: GatewayTarget =
      args.mode === 'model'
        ? await modelTarget(args)
        : args.mcpCharacter !== undefined
          ? {
              kind: 'host',
              host: (mcpServers) => PiHost.start({ ...piOptions, ...(mcpServers !== undefined && { mcpServers }) }),
              mcpCharacter: args.mcpCharacter,
            }
          : host !== undefined
            ? { kind: 'host', host }
            : args.mode === 'daemon'
              ? {
                  kind: 'daemon',
                  socketPath: args.daemonSocket!,
                  ...(args.maxFrame === undefined ? {} : { maxLineBytes: args.maxFrame }),
                  ...(args.storedSessions === true ? { storedSessions: true } : {}),
                  ...(args.admin === true ? { admin: true } : {}),
                }
              : { kind: 'relay', peersHome: args.peersHome! };
    // In daemon mode --max-frame is the line limit; the WebSocket limit follows from it.
    const maxPayload = args.maxFrame === undefined || args.mode === 'daemon' ? {} : { maxPayload: args.maxFrame };
    const gateway = await startGateway({
      target,
      origins: args.origins,
      key: args.key!,
      port: args.port,
      log,
      ...maxPayload,
      ...(args.mcp === true && { mcp: true }),
      ...(args.mcpIdleMs !== undefined && { mcpIdleMs: args.mcpIdleMs }),
    });
    host ??= gateway.host;
    io.stdout.write(`aicc gateway: listening on ${gateway.url}/\n`);
    const why = await stopped(runtime.signal, host);
    await gateway.close();
    await host?.close();
    if (why !== 'signal') {
      io.stderr.write(`aicc gateway: ${why}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    await host?.close();
    io.stderr.write(`aicc gateway: ${userMessage(error)}\n`);
    return error instanceof Error && 'code' in error && error.code === 'AICC_INVALID_OPTION' ? 2 : 1;
  }
}

/** Model mode's target: the model loaded (pi-ai, the key read here), shared by every lent character. */
async function modelTarget(args: GatewayArgs): Promise<GatewayTarget> {
  const model = await piAiModel({
    provider: args.provider!,
    model: args.model!,
    ...(args.baseUrl !== undefined && { baseUrl: args.baseUrl }),
    ...(args.maxTokens !== undefined && { maxTokens: args.maxTokens }),
  });
  return {
    kind: 'model',
    turn: model.turn,
    name: `${model.name} (${model.library})`,
    ...(args.maxConcurrent !== undefined && { gate: { maxConcurrent: args.maxConcurrent } }),
    ...(args.systemPrompt !== undefined && { backend: { systemPrompt: args.systemPrompt } }),
  };
}

function hostOptions(args: GatewayArgs): PiHostOptions {
  const options: PiHostOptions = {};
  for (const name of ['piBin', 'provider', 'model', 'systemPrompt', 'agentDir', 'label'] as const) {
    const value = args[name];
    if (value !== undefined) options[name] = value;
  }
  if (args.piNode !== undefined) options.node = args.piNode;
  return options;
}

/** Resolves with "signal" when asked to stop, or with why the hosted pi went away. */
function stopped(signal: AbortSignal | undefined, host: PiHost | undefined): Promise<string> {
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const done = (why: string): void => {
      for (const cleanup of cleanups) cleanup();
      resolve(why);
    };
    if (signal !== undefined) {
      if (signal.aborted) return done('signal');
      const onAbort = (): void => done('signal');
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    } else {
      const onSignal = (): void => done('signal');
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      cleanups.push(
        () => process.off('SIGINT', onSignal),
        () => process.off('SIGTERM', onSignal),
      );
    }
    if (host !== undefined) {
      if (host.exit !== undefined) return done(host.exit);
      cleanups.push(host.onExit((description) => done(description)));
    }
  });
}
