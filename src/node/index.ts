// aicc-capsule/node: the Node-only library — schema precompilation, the gateway, socket links and
// sweeps on worker threads. The `aicc` command line (src/node/cli) stands on it; it is not part of it.

export { compileToolSchemas } from './compileSchemas.js';
export { runSweep } from './sweep/runSweep.js';

export {
  startGateway,
  PiHost,
  PiProcess,
  discoverAgents,
  findAgent,
  SUBPROTOCOL,
  DAEMON_SUBPROTOCOL,
  KEY_PREFIX,
  MODEL_GATEWAY_CONCURRENCY,
} from './gateway/index.js';
export { connectSocketLink, socketLink, streamLink } from './socketLink.js';
export { piAiModel } from './model/piAi.js';

export type { ThreadSweepOptions } from './sweep/runSweep.js';
export type { PiAiModelOptions, PiAiModel } from './model/piAi.js';
export type { GatewayOptions, GatewayTarget, ModelTarget } from './gateway/index.js';
export type { SweepOptions, SweepResult } from './sweep/sweepResult.js';
