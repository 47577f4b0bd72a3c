// README.md and docs/*.md as a user follows them: every block marked `run` or `compile` is written
// into a consumer project that installed the packed package, and type-checked by tsc --strict under
// each module resolution a user may have (bundler for Vite and friends, nodenext for Node, node10
// for older setups), and by the TypeScript of the app `npm create vite` makes (vanilla-ts) under
// that template's own tsconfig.json — noUnusedLocals, noUnusedParameters, erasableSyntaxOnly,
// verbatimModuleSyntax and the rest, read from the create-vite dev dependency (viteTemplate.ts);
// every `run` block is then run in Node and must end by itself and print what the doc says it
// prints. The marking convention is codeBlocks.ts's (and README's "Development").

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allCodeBlocks, blockFile, type CodeBlock, importedPackages, matchesOutput } from './codeBlocks.js';
import { consumerProject, packedSkip, ROOT } from './packed.js';
import { createViteVersion, satisfies, TEMPLATE, templateTsc, templateTsconfig } from './viteTemplate.js';

const blocks = allCodeBlocks(ROOT);
// TypeScript's: Python's (docs/PYTHON.md) are run by the Python suite, python/tests/test_docs.py.
const programs = blocks.filter((block) => (block.mark === 'run' || block.mark === 'compile') && block.lang === 'ts');
const where = (block: CodeBlock) => `${block.doc}:${block.line}`;

/** How long a `run` block may take before it counts as never ending (the quick start takes well under a second). */
const RUN_BOUND_MS = 20_000;

const RESOLUTIONS = {
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  node10: { module: 'esnext', moduleResolution: 'node10' },
} as const;
type Resolution = keyof typeof RESOLUTIONS;
/** The configs the blocks are compiled under: the three resolutions, and Vite's vanilla-ts template. */
type Config = Resolution | 'vite-template';
const TEMPLATE_NAME = `create-vite ${createViteVersion()} vanilla-ts`;

describe('the code blocks of README.md and docs/*.md', () => {
  it('each says what it is: exactly one of run, compile, output or norun after its language', () => {
    const unmarked = blocks.filter((block) => block.mark === undefined).map((block) => `${where(block)} \`\`\`${[block.lang, ...block.words].join(' ')}`);
    expect(unmarked, 'mark each fence, e.g. ```ts run, ```ts compile, ```text output, ```sh norun (README.md, "Development")').toEqual([]);
  });

  it('each run block is followed by the output block it prints, and each output block follows a run block', () => {
    const runs = blocks.filter((block) => block.mark === 'run');
    expect(runs.filter((block) => block.output === undefined).map(where), 'a run block needs a ```text output block after it').toEqual([]);
    const claimed = new Set(runs.map((block) => block.output));
    expect(blocks.filter((block) => block.mark === 'output' && !claimed.has(block)).map(where), 'an output block must follow a run block').toEqual([]);
  });

  it('an output block is read line for line, a line `…` standing for any lines', () => {
    expect(matchesOutput('a\nb\nc\n', 'a\n…\nc\n')).toBe(true);
    expect(matchesOutput('a\nc\n', 'a\n…\nc\n')).toBe(true);
    expect(matchesOutput('a\nb\nc\nd\n', 'a\n…\nc\n')).toBe(false);
    expect(matchesOutput('a\nb\n', 'a\n')).toBe(false);
    expect(matchesOutput('wren is at x = 1\n', 'wren is at x = 2\n')).toBe(false);
  });

  it('its programs are TypeScript, or Python that the Python suite runs, and there is at least one of each kind', () => {
    const others = blocks.filter((block) => (block.mark === 'run' || block.mark === 'compile') && block.lang !== 'ts');
    expect(others.filter((block) => !(block.lang === 'python' && block.mark === 'run' && block.doc === 'docs/PYTHON.md')).map(where)).toEqual([]);
    expect(programs.some((block) => block.mark === 'run') && programs.some((block) => block.mark === 'compile')).toBe(true);
  });

  it(`${TEMPLATE_NAME} is compiled by the TypeScript its package.json asks for, with this project's Vite`, () => {
    expect(satisfies('7.0.2', '~7.0.2') && satisfies('7.0.9', '~7.0.2') && satisfies('8.3.8', '^8.3.4')).toBe(true);
    expect(satisfies('7.1.0', '~7.0.2') || satisfies('7.0.1', '~7.0.2') || satisfies('9.0.0', '^8.3.4') || satisfies('8.3.3', '^8.3.4')).toBe(false);
    expect(() => templateTsc()).not.toThrow();
  });

  it('README starts with the two set-up commands', () => {
    const first = blocks.find((block) => block.doc === 'README.md')!;
    expect(first.code).toContain('npm ci && npm run demo');
    expect(first.code).toContain('npm test');
  });

  it("README's quick start stops its capsule, and the text after it says how a capsule is stopped", () => {
    const quickStart = blocks.find((block) => block.doc === 'README.md' && block.mark === 'run')!;
    expect(quickStart.code).toMatch(/^capsule\.dispose\(\);/m);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('**`capsule.dispose()` is how a capsule stops**');
  });
});

describe.skipIf(packedSkip)('the code blocks, as a user runs them against the packed package', () => {
  let project = '';
  const diagnostics = {} as Record<Config, string[]>;

  beforeAll(async () => {
    // Each engine a block imports is linked from this project, with its @types when it has some.
    const engines = [...new Set(programs.flatMap(importedPackages))];
    // A block on the Node-only entry is Node code: its project has Node's types, as a Node user's has.
    const forNode = programs.some((block) => /from ['"]aicc-capsule\/(node|queue)['"]/.test(block.code));
    const link = [
      'typescript',
      'vite', // the template's tsconfig asks for vite/client's types
      ...engines,
      ...engines.map((name) => `@types/${name}`).filter((name) => existsSync(join(ROOT, 'node_modules', name))),
      ...(forNode ? ['@types/node'] : []),
    ];
    project = consumerProject({ name: 'docs', link });
    rmSync(join(project, 'blocks'), { recursive: true, force: true });
    rmSync(join(project, 'out'), { recursive: true, force: true });
    mkdirSync(join(project, 'blocks'));
    for (const block of programs) writeFileSync(join(project, 'blocks', blockFile(block)), block.code);
    // All at once: each tsc 5.9 is single-threaded.
    await Promise.all([
      ...(Object.keys(RESOLUTIONS) as Resolution[]).map(async (resolution) => {
        const emit = resolution === 'nodenext'; // the runs use nodenext's JavaScript, as Node runs it
        const options = {
          strict: true,
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: forNode ? ['node'] : [],
          esModuleInterop: true,
          skipLibCheck: false,
          ...RESOLUTIONS[resolution],
          ...(emit ? { outDir: 'out', rootDir: 'blocks' } : { noEmit: true }),
        };
        const config = `tsconfig.${resolution}.json`;
        writeFileSync(join(project, config), JSON.stringify({ compilerOptions: options, include: ['blocks/*.ts'] }, null, 2));
        const output = await tsc(project, config);
        diagnostics[resolution] = output.split('\n').filter((line) => /error TS\d+/.test(line));
      }),
      (async () => {
        // The template's tsconfig.json as the app has it, its include and types aside: the blocks, and
        // Node's types for a Node block (a Node program's project has them, as the others here do).
        copyFileSync(join(TEMPLATE, 'tsconfig.json'), join(project, 'tsconfig.template.json'));
        const types = [...((templateTsconfig().compilerOptions.types as string[] | undefined) ?? []), ...(forNode ? ['node'] : [])];
        const config = 'tsconfig.vite-template.json';
        writeFileSync(
          join(project, config),
          JSON.stringify({ extends: './tsconfig.template.json', compilerOptions: { types }, include: ['blocks/*.ts'] }, null, 2),
        );
        const output = await tsc(project, config, templateTsc());
        diagnostics['vite-template'] = output.split('\n').filter((line) => /error TS\d+/.test(line));
      })(),
    ]);
  }, 600_000);

  for (const block of programs) {
    it(`${where(block)} (${block.mark}) compiles under tsc --strict with moduleResolution bundler, nodenext and node10, and as ${TEMPLATE_NAME} checks it`, () => {
      const file = `blocks/${blockFile(block)}(`;
      const errors = Object.entries(diagnostics).flatMap(([resolution, lines]) =>
        lines.filter((line) => line.startsWith(file)).map((line) => `${resolution}: ${line}`),
      );
      expect(errors).toEqual([]);
    });
  }

  it("the package's declarations compile clean under each resolution, skipLibCheck off", () => {
    // Only ours: Phaser 4's own phaser.d.ts has errors of its own under strict (a `this` type in a
    // static member, a method override) that a user's skipLibCheck hides, as it hides them here.
    const errors = Object.entries(diagnostics).flatMap(([resolution, lines]) =>
      lines.filter((line) => line.startsWith('node_modules/aicc-capsule/')).map((line) => `${resolution}: ${line}`),
    );
    expect(errors).toEqual([]);
  });

  for (const block of programs.filter((candidate) => candidate.mark === 'run')) {
    it(
      `${where(block)} runs in Node, ends by itself within ${RUN_BOUND_MS / 1000} s, and prints what the doc says`,
      () => {
        const script = join(project, 'out', blockFile(block).replace(/\.ts$/, '.js'));
        expect(existsSync(script), `${script} was not emitted`).toBe(true);
        const run = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8', timeout: RUN_BOUND_MS });
        expect(run.error, `it did not end within ${RUN_BOUND_MS / 1000} s: a timer or a socket left open keeps Node alive`).toBeUndefined();
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        expect(block.output, 'the doc must say what it prints: a ```text output block after it').toBeDefined();
        const expected = block.output!.code;
        expect(matchesOutput(run.stdout, expected), `it printed:\n${run.stdout}\nthe doc says (${where(block.output!)}):\n${expected}`).toBe(true);
      },
      RUN_BOUND_MS + 10_000,
    );
  }
});

/** Runs a tsc (the project's, unless given) on one config; its output, whether or not it found errors. */
function tsc(project: string, config: string, compiler = join(project, 'node_modules', 'typescript', 'bin', 'tsc')): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiler, '-p', config, '--pretty', 'false'], { cwd: project });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0 || output.includes('error TS') ? resolve(output) : reject(new Error(`tsc -p ${config} failed in ${project} (exit ${status}):\n${output}`)),
    );
  });
}
