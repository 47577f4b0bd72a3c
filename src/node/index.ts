// aicc-capsule/node: the Node-only library — schema precompilation, the gateway, socket links,
// sweeps and evals on worker threads, and an eval's report. The `aicc` command line (src/node/cli) stands on it; it is not part of it.

export { compileToolSchemas } from './compileSchemas.js';
export { runSweep } from './sweep/runSweep.js';
export { runEval } from './eval/runEval.js';
export { summarizeEval } from './eval/evalSummary.js';
export { renderReport, writeReport } from './eval/report.js';

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
export { startServe } from './serve/serveServer.js';

export type { ThreadSweepOptions } from './sweep/runSweep.js';
export type { EvalOptions, EvalResult, EvalBudget, EvalSpent } from './eval/runEval.js';
export type { PiEvalOptions } from './eval/piEvalAgent.js';
export type { EvalAgentSpec } from './eval/agentSpec.js';
export type { SummaryInput } from './eval/evalSummary.js';
export type { ReportInput } from './eval/report.js';
export type { PiAiModelOptions, PiAiModel } from './model/piAi.js';
export type { GatewayOptions, GatewayTarget, ModelTarget } from './gateway/index.js';
export type { SweepOptions, SweepResult } from './sweep/sweepResult.js';
export type { ServeOptions, ServeHandle } from './serve/serveServer.js';
