// Which test file runs in which vitest project: one table that vitest.config.ts makes its projects
// from and scripts/test.mjs reads to know whether the projects asked for need dist/ built first.
//
// `unit` is the inner loop (`npm test -- --project unit`: no build, no type check): every test file
// the table does not claim, in Node. `dom` is the same for the files whose opening comment asks for
// jsdom (vitest.config.ts finds them): a project of its own because a vitest worker takes on the next
// file with its module cache only when that file runs in the same environment — mixed into `unit`,
// every jsdom file cost a fresh process, about a second each. A new file lands in one of the two
// unless a pattern here names it, so a file that needs dist/, the real pi or pi-daemon, Chromium or
// Redis is added to its project's patterns (the e2e folders are claimed whole).
// No imports: scripts/test.mjs loads this file (through tsx) before it decides whether to build.

export type TestProject = {
  name: string;
  /** Globs from the repository root. */
  include: string[];
  exclude?: string[];
  /** Reads dist/ or runs what is built there: `npm test` builds first when a project asked for has this. */
  build: boolean;
};

export const UNIT = 'unit';
export const DOM = 'dom';
/** Every test file. */
export const ALL_TESTS = 'test/**/*.test.ts';

/** The projects that claim files from unit and dom, run by a bare `npm test` (as CI does) or when named. */
export const CLAIMING_PROJECTS: TestProject[] = [
  // No build, but slow by design — kept out of the inner loop.
  // The fuzz campaigns' short budgets (`npm run fuzz` runs the long ones): seconds of CPU a file.
  { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], build: false },
  // The conformance suite against the capsule, the adapters and the worlds, in every tick mode and
  // codec: some 13 s, two thirds of it the suite waiting on wall time (a call in a fixed-mode world
  // must not be answered before the tick) — as long as half the inner loop.
  { name: 'conformance', include: ['test/conformance/**/*.test.ts', 'test/node/cli/conformanceCommand.test.ts'], build: false },
  // Type-level tests: the TypeScript compiler on fixtures, seconds of CPU a file. They go with the
  // type check (`tsc --noEmit` covers the same fixtures), which the inner loop skips too.
  { name: 'types', include: ['test/**/*.types.test.ts'], build: false },
  // The real pi (0.73 on Node 20, 1.x on Node 22) against the stub model: each file starts pi.
  { name: 'pi', include: ['test/e2e/*.test.ts'], build: false },
  // A real small language model (SmolLM2-135M on node-llama-cpp, one thread) behind an OpenAI-compatible
  // endpoint (test/support/localModel/): installed once into the tests' cache, seconds of CPU a request.
  { name: 'model', include: ['test/e2e/localModel/**/*.test.ts'], build: false },

  // The real pi-daemon, installed from its vendored tarball; demo.test.ts runs the built `aicc demo`.
  { name: 'daemon', include: ['test/e2e/daemon/**/*.test.ts'], build: true },
  // Headless Chromium (playwright-core); the demo pages load dist/'s script-tag bundles, csp.test.ts the packed package.
  { name: 'browser', include: ['test/e2e/browser/**/*.test.ts', 'test/inspector/browser.test.ts', 'test/node/eval/report.test.ts'], build: true },
  // A redis-server started on loopback; the queue worker runs as the built `aicc worker`.
  { name: 'redis', include: ['test/node/queue/**/*.test.ts', 'test/node/cli/workerCommand.test.ts', 'test/consumer/researchCommands.test.ts'], build: true },
  // The package as users get it: dist/ read or packed, the built CLI or sweep worker run in processes
  // of their own. The MCP Inspector over HTTP (a third-party CLI, seconds a run) goes with its stdio twin.
  {
    name: 'dist',
    include: [
      'test/api/**/*.test.ts',
      'test/bundle.test.ts',
      'test/node/cli/demoCommand.test.ts',
      'test/node/cli/sweepCommand.test.ts',
      'test/consumer/**/*.test.ts',
      'test/demos/village.test.ts',
      'test/mcp/inspectorCli.test.ts',
      'test/mcp/inspectorCliHttp.test.ts',
      'test/mcp/stdioDemo.test.ts',
      'test/mcp/stdioFork.test.ts',
      'test/node/sweep/**/*.test.ts',
      'test/node/eval/runEval.test.ts',
      'test/node/eval/programAgent.test.ts',
      'test/node/eval/mcpAgent.test.ts',
      'test/node/cli/evalCommand.test.ts',
    ],
    exclude: ['test/consumer/researchCommands.test.ts'],
    build: true,
  },
  // Every bench module run quick: the bundle-size bench packs dist/, the Phaser frame bench needs Chromium, the pilot bench the real pi.
  { name: 'bench', include: ['test/bench.test.ts'], build: true },
];
