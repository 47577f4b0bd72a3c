// aicc-capsule/node: Node-only tools — schema precompilation and the command line.

export { compileToolSchemas, compileSchemasCommand } from './compileSchemas.js';
export { main as runCli } from './cliMain.js';

export type { CliIo } from './cliMain.js';
