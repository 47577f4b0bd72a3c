// An agent under test as `aicc eval --agent NAME=SPEC` names it: plain text that travels to worker
// threads and queue workers unchanged, read into what it stands for where the episode runs.
//
//   policy:NAME                    one of the world's scripted policies (`policy:world`: its own)
//   model:PROVIDER/MODEL           a model through pi's provider library (key from the environment or pi's store)
//   model:PROVIDER/MODEL@BASE_URL  a model on an OpenAI-compatible server (`@http://127.0.0.1:8080/v1`)
//   cmd:COMMAND                    a program (run by the shell) speaking aicc/0.1 as NDJSON on its stdio

import { CapsuleError } from '../../base/errors.js';

export type AgentSpec =
  | { kind: 'policy'; policy: string }
  | { kind: 'model'; provider: string; model: string; baseUrl?: string }
  | { kind: 'cmd'; command: string };

/** An agent of an eval: its name (what results and reports call it) and its spec as given. */
export interface EvalAgentSpec {
  name: string;
  spec: string;
}

const NAME = /^[A-Za-z][\w.-]{0,63}$/;

/** What the spec kinds look like, for messages. */
export const AGENT_SPEC_FORMS = 'policy:NAME, model:PROVIDER/MODEL, model:PROVIDER/MODEL@BASE_URL or cmd:COMMAND';

/** Reads a spec; throws an AICC_INVALID_OPTION naming what it expects. */
export function parseAgentSpec(spec: string, place = 'eval'): AgentSpec {
  const policy = /^policy:([A-Za-z][\w.-]{0,63})$/.exec(spec);
  if (policy !== null) return { kind: 'policy', policy: policy[1]! };
  const model = /^model:([^/\s@]+)\/([^\s@]+)(?:@(https?:\/\/\S+))?$/.exec(spec);
  if (model !== null) return { kind: 'model', provider: model[1]!, model: model[2]!, ...(model[3] !== undefined && { baseUrl: model[3] }) };
  const command = /^cmd:(.*\S.*)$/s.exec(spec);
  if (command !== null) return { kind: 'cmd', command: command[1]!.trim() };
  const kind = /^([a-z-]+):/.exec(spec)?.[1];
  if (kind === 'pi' || kind === 'pi-daemon' || kind === 'mcp')
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: agents of kind ${kind}: cannot be evaluated yet (the eval cannot yet tell when such an agent has finished its turn); use ${AGENT_SPEC_FORMS} — a program speaking aicc/0.1 on its stdio runs as cmd:COMMAND`,
    );
  throw new CapsuleError('AICC_INVALID_OPTION', `${place}: an agent spec is ${AGENT_SPEC_FORMS}; got ${JSON.stringify(spec)}`);
}

/** Reads `NAME=SPEC` (as --agent takes it); a bare SPEC is named after itself where that is a name (`policy:world` → `world`). */
export function parseNamedAgent(text: string, place = 'eval'): EvalAgentSpec {
  const at = text.indexOf('=');
  const name = at > 0 ? text.slice(0, at) : defaultName(text);
  const spec = at > 0 ? text.slice(at + 1) : text;
  if (!NAME.test(name))
    throw new CapsuleError(
      'AICC_INVALID_OPTION',
      `${place}: an agent's name is a letter then up to 63 letters, digits, _ . or -; got ${JSON.stringify(name)} (--agent NAME=SPEC)`,
    );
  parseAgentSpec(spec, place);
  return { name, spec };
}

function defaultName(spec: string): string {
  const policy = /^policy:(.+)$/.exec(spec);
  if (policy !== null) return policy[1]!;
  const model = /^model:[^/]+\/([^@]+)/.exec(spec);
  if (model !== null) return model[1]!.replace(/[^\w.-]/g, '-');
  // A command's program, by its file's name (`cmd:node bots/walker.js` → walker).
  const program = /^cmd:\s*(?:\S*node\S*\s+)?(?:\S*\/)?([A-Za-z][\w-]*)/.exec(spec);
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
