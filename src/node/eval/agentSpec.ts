// An agent under test as `aicc eval --agent NAME=SPEC` names it: plain text that travels to worker
// threads and queue workers unchanged, read into what it stands for where the episode runs.
//
//   policy:NAME                    one of the world's scripted policies (`policy:world`: its own)
//   model:PROVIDER/MODEL           a model through pi's provider library (key from the environment or pi's store)
//   model:PROVIDER/MODEL@BASE_URL  a model on an OpenAI-compatible server (`@http://127.0.0.1:8080/v1`)
//   cmd:COMMAND                    a program (run by the shell) speaking aicc/0.1 as NDJSON on its stdio
//   mcp:COMMAND                    an MCP client (run by the shell), the character served to it over its stdio
//   pi:PROVIDER/MODEL              pi (`pi --mode rpc`, behind a gateway on 127.0.0.1), with the user's pi configuration
//   pi:default                     the same with pi's own default model
//   pi-daemon:SOCKET               a session on a running pi-daemon (its default model)
//   pi-daemon:SOCKET#PROVIDER/MODEL  the same with that model

import { CapsuleError } from '../../base/errors.js';

export type AgentSpec =
  | { kind: 'policy'; policy: string }
  | { kind: 'model'; provider: string; model: string; baseUrl?: string }
  | { kind: 'cmd'; command: string }
  | { kind: 'mcp'; command: string }
  | { kind: 'pi'; provider?: string; model?: string }
  | { kind: 'pi-daemon'; socket: string; provider?: string; model?: string };

/** An agent of an eval: its name (what results and reports call it) and its spec as given. */
export interface EvalAgentSpec {
  name: string;
  spec: string;
}

const NAME = /^[A-Za-z][\w.-]{0,63}$/;

/** What the spec kinds look like, for messages. */
export const AGENT_SPEC_FORMS =
  'policy:NAME, model:PROVIDER/MODEL[@BASE_URL], cmd:COMMAND, mcp:COMMAND, pi:PROVIDER/MODEL, pi:default or pi-daemon:SOCKET[#PROVIDER/MODEL]';

/** Reads a spec; throws an AICC_INVALID_OPTION naming what it expects. */
export function parseAgentSpec(spec: string, place = 'eval'): AgentSpec {
  const policy = /^policy:([A-Za-z][\w.-]{0,63})$/.exec(spec);
  if (policy !== null) return { kind: 'policy', policy: policy[1]! };
  const model = /^model:([^/\s@]+)\/([^\s@]+)(?:@(https?:\/\/\S+))?$/.exec(spec);
  if (model !== null) return { kind: 'model', provider: model[1]!, model: model[2]!, ...(model[3] !== undefined && { baseUrl: model[3] }) };
  const command = /^(cmd|mcp):(.*\S.*)$/s.exec(spec);
  if (command !== null) return { kind: command[1] as 'cmd' | 'mcp', command: command[2]!.trim() };
  if (spec === 'pi:default') return { kind: 'pi' };
  const pi = /^pi:([^/\s]+)\/(\S+)$/.exec(spec);
  if (pi !== null) return { kind: 'pi', provider: pi[1]!, model: pi[2]! };
  const daemon = /^pi-daemon:([^#]*[^#\s])(?:#([^/\s]+)\/(\S+))?$/.exec(spec);
  if (daemon !== null) return { kind: 'pi-daemon', socket: daemon[1]!.trim(), ...(daemon[2] !== undefined && { provider: daemon[2], model: daemon[3]! }) };
  throw new CapsuleError('AICC_INVALID_OPTION', `${place}: an agent spec is ${AGENT_SPEC_FORMS}; got ${JSON.stringify(spec)}`);
}

/** Reads `NAME=SPEC` (as --agent takes it); a bare SPEC is named after itself where that is a name (`policy:world` → `world`). */
export function parseNamedAgent(text: string, place = 'eval'): EvalAgentSpec {
  const { name, spec } = splitNamedAgent(text);
  if (!NAME.test(name))
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: an agent's name is a letter then up to 63 letters, digits, _ . or -; got ${JSON.stringify(name)} (--agent NAME=SPEC)`,
    );
  parseAgentSpec(spec, place);
  return { name, spec };
}

/** `NAME=SPEC` split as parseNamedAgent reads it (a bare SPEC named after itself), unchecked. */
export function splitNamedAgent(text: string): EvalAgentSpec {
  const at = text.indexOf('=');
  return at > 0 ? { name: text.slice(0, at), spec: text.slice(at + 1) } : { name: defaultName(text), spec: text };
}

function defaultName(spec: string): string {
  const policy = /^policy:(.+)$/.exec(spec);
  if (policy !== null) return policy[1]!;
  const model = /^model:[^/]+\/([^@]+)/.exec(spec);
  if (model !== null) return model[1]!.replace(/[^\w.-]/g, '-');
  const pi = /^pi:(?:[^/]+\/)?(.+)$/.exec(spec);
  if (pi !== null) return `pi-${pi[1]!.replace(/[^\w.-]/g, '-')}`;
  if (spec.startsWith('pi-daemon:')) return 'pi-daemon';
  // A command's program, by its file's name (`cmd:node bots/walker.js` → walker).
  const program = /^(?:cmd|mcp):\s*(?:\S*node\S*\s+)?(?:\S*\/)?([A-Za-z][\w-]*)/.exec(spec);
  return program !== null ? program[1]! : spec;
}

/** Checks a list of agents (`NAME=SPEC` or `{ name, spec }`): at least one, each readable, names unique. */
export function checkAgents(agents: ReadonlyArray<EvalAgentSpec | string>, place = 'eval'): EvalAgentSpec[] {
  if (agents.length === 0) throw new CapsuleError('AICC_INVALID_OPTION', `${place}: name at least one agent to evaluate (--agent NAME=SPEC)`);
  const names = new Set<string>();
  return agents.map((agent) => {
    const checked = typeof agent === 'string' ? parseNamedAgent(agent, place) : parseNamedAgent(`${agent.name}=${agent.spec}`, place);
    if (names.has(checked.name))
      throw new CapsuleError('AICC_INVALID_OPTION', `${place}: two agents are named ${JSON.stringify(checked.name)}; give each its own name (NAME=SPEC)`);
    names.add(checked.name);
    return checked;
  });
}
