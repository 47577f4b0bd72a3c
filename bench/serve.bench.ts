// `aicc serve` from Python: agent-steps a second, one core's worth, of the swarm's vector face — one
// forager played through Gymnasium's API (AiccGymEnv over HTTP, one kept-alive connection), the other
// foragers by the world's policy — against the same steps through ServedEnv in this process (the
// floor: the world, its tool calls through the capsule, the tick; no HTTP, no JSON), with the same
// steps from a lean Node client (node:http, one kept-alive socket) between them, so the HTTP step's
// overhead splits part by part: the floor (ServedEnv.step) → + HTTP and the server's JSON (the Node
// client − floor) → + the Python client (Python − the Node client).
// Beside it, the anchor the issue names: Godot RL Agents, about 3,000 interactions a second per core.
// The Python row needs the suite's virtual environment (npm test makes it under node_modules/.cache);
// without it the row says so and its Python figure is the fetch figure.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { startServe } from '../src/node/serve/serveServer.js';
import { ServedEnv } from '../src/research/servedEnv.js';
import { swarmWorld } from '../src/worlds/index.js';
import { repoRoot, type BenchOptions, type BenchRow } from './row.js';

const root = repoRoot(import.meta.url);
const GODOT_RL_STEPS_PER_CORE = 3000;
const PARAMS = { foragers: 4, size: 16, foodDensity: 0.2 };
const AGENT = 'forager-000';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const steps = options.quick ? 200 : 5000;
  const floor = await inProcess(steps);
  const everyone = Array.from({ length: PARAMS.foragers }, (_, i) => `forager-${String(i).padStart(3, '0')}`);
  const floorAll = await inProcess(steps, everyone);
  const server = await startServe({ world: swarmWorld, port: 0 });
  try {
    const fetched = await overHttp(server.url, steps);
    const python = await overPython(server.url, steps);
    const parallel = await overPython(server.url, steps, 'parallel');
    const slowest = python?.rate ?? fetched;
    const ms = (rate: number): number => 1000 / rate;
    const parts = [
      `ServedEnv step ${ms(floor).toFixed(3)} ms`,
      `HTTP and the server's JSON ${(ms(fetched) - ms(floor)).toFixed(3)} ms (a lean Node client)`,
      python === undefined ? `Python: not measured (${pythonMissing()})` : `Python client ${(ms(python.rate) - ms(fetched)).toFixed(3)} ms`,
    ];
    const rows: BenchRow[] = [
      {
        name: 'serve: swarm vector-face steps/s per core, Python over HTTP vs in-process',
        capsule: slowest,
        baseline: floor,
        unit: 'steps/s',
        ratio: floor / slowest,
        note: `one forager of ${PARAMS.foragers} (the rest by the world's policy), ${steps} steps; per agent-step: ${parts.join(', ')}; node:http client ${fetched.toFixed(0)} steps/s; anchor: Godot RL ~${GODOT_RL_STEPS_PER_CORE.toLocaleString('en-US')} interactions/s per core (${(slowest / GODOT_RL_STEPS_PER_CORE).toFixed(2)}× that)`,
      },
    ];
    // Every forager a request, when the suite's Python is there to measure it.
    if (parallel !== undefined)
      rows.push({
        name: `serve: swarm agent-steps/s per core, ${PARAMS.foragers} foragers a request (PettingZoo) vs in-process`,
        capsule: parallel.rate,
        baseline: floorAll,
        unit: 'agent-steps/s',
        ratio: floorAll / parallel.rate,
        note: `AiccParallelEnv, every forager acting every step, ${steps} steps; one HTTP request carries ${PARAMS.foragers} agent-steps; anchor: Godot RL ~${GODOT_RL_STEPS_PER_CORE.toLocaleString('en-US')} interactions/s per core (${(parallel.rate / GODOT_RL_STEPS_PER_CORE).toFixed(2)}× that)`,
      });
    return rows;
  } finally {
    await server.close();
  }
}

/** The floor: the same steps through ServedEnv, no HTTP. Agent-steps a second (`agents` act each step). */
async function inProcess(steps: number, agents: readonly string[] = [AGENT]): Promise<number> {
  const env = new ServedEnv(swarmWorld);
  await env.reset({ seed: 1, face: 'vectors', agents, params: PARAMS, maxTicks: steps * 2 });
  const actions = (i: number) => Object.fromEntries(agents.map((agent, j) => [agent, (i + j) % 5]));
  for (let i = 0; i < 200; i++) await env.step(actions(i));
  const started = performance.now();
  for (let i = 0; i < steps; i++) await env.step(actions(i));
  const rate = (steps * agents.length) / ((performance.now() - started) / 1000);
  await env.close();
  return rate;
}

/** The same steps from node:http on one kept-alive socket (a lean client): the floor plus HTTP and the server's JSON. */
async function overHttp(url: string, steps: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const sent = request(
        `${url}${path}`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
        (response) => {
          let answer = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (answer += chunk));
          response.on('end', () => resolve(JSON.parse(answer)));
        },
      );
      sent.setNoDelay(true);
      sent.on('error', reject);
      sent.end(text);
    });
  const { episode_id } = await post('/reset', { seed: 1, face: 'vectors', agents: [AGENT], params: PARAMS, max_ticks: steps * 2 });
  for (let i = 0; i < 200; i++) await post('/step', { episode_id, actions: { [AGENT]: i % 5 } });
  const started = performance.now();
  for (let i = 0; i < steps; i++) await post('/step', { episode_id, actions: { [AGENT]: i % 5 } });
  const rate = steps / ((performance.now() - started) / 1000);
  await post('/close', { episode_id });
  agent.destroy();
  return rate;
}

/** The suite's Python, if npm test made it. */
function suitePython(): string | undefined {
  const cache = join(root, 'node_modules', '.cache');
  if (!existsSync(cache)) return undefined;
  const venv = readdirSync(cache).find((name) => name.startsWith('aicc-python-') && existsSync(join(cache, name, '.installed')));
  return venv === undefined ? undefined : join(cache, venv, 'bin', 'python');
}

function pythonMissing(): string {
  return 'no Python suite environment: run npm test once';
}

const SCRIPT = `
import json, sys, time
from aicc import AiccGymEnv, AiccParallelEnv
url, steps, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
params = ${JSON.stringify(PARAMS)}
if mode == "gym":
    env = AiccGymEnv(url, agent="${AGENT}", params=params, max_ticks=steps * 2)
    env.reset(seed=1)
    act = lambda i: i % 5
    width = 1
else:
    env = AiccParallelEnv(url, params=params, max_ticks=steps * 2)
    env.reset(seed=1)
    act = lambda i: {agent: (i + j) % 5 for j, agent in enumerate(env.possible_agents)}
    width = len(env.possible_agents)
for i in range(200):
    env.step(act(i))
started = time.perf_counter()
for i in range(steps):
    env.step(act(i))
print(json.dumps({"rate": steps * width / (time.perf_counter() - started)}))
env.close()
`;

/** The steps from Python through AiccGymEnv, in a process of its own (spawned, not spawnSync: the server runs in this process). */
async function overPython(url: string, steps: number, mode: 'gym' | 'parallel' = 'gym'): Promise<{ rate: number } | undefined> {
  const python = suitePython();
  if (python === undefined) return undefined;
  const child = spawn(python, ['-c', SCRIPT, url, String(steps), mode], {
    env: { ...process.env, PYTHONPATH: join(root, 'python', 'src') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const status = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  if (status !== 0) throw new Error(`serve bench: the Python client failed: ${err.slice(-500)}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as { rate: number };
}
