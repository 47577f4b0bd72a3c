// aicc-capsule/node: Node-only tools — schema precompilation and the command line.

export { compileToolSchemas, compileSchemasCommand } from './compileSchemas.js';
export { main as runCli } from './cliMain.js';
export { runSweep } from './sweep/runSweep.js';

export { startGateway, PiHost, PiProcess, discoverAgents, findAgent, SUBPROTOCOL, DAEMON_SUBPROTOCOL, KEY_PREFIX } from './gateway/index.js';
export { connectSocketLink, socketLink, streamLink } from './socketLink.js';

export type { CliIo } from './cliMain.js';
export type { ThreadSweepOptions } from './sweep/runSweep.js';
export type { SweepOptions, SweepResult } from './sweep/sweepResult.js';
