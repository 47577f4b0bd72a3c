// `npm run demo:web`: bundles the browser demos (demos/<name>/ with an index.html), serves them on
// 127.0.0.1 and prints their URLs; with --gateway, pages opened with ?agent=pi reach pi through the
// server's /pi path. A development tool of this repository (it needs esbuild and demos/), not part
// of the published `aicc` command.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../../src/node/cli/main.js';
import { bundleDemos, findDemos } from './bundle.js';
import { DEMO_CSP, startDemoServer } from './server.js';
import { checkKeyFormat } from '../../src/node/gateway/access.js';
import { untilStopped } from '../../src/node/cli/untilStopped.js';

export const DEFAULT_DEMO_PORT = 5173;

const HELP = `npm run demo:web — the browser demos, built and served on 127.0.0.1

Usage: npm run demo:web -- [--port N] [--gateway ws://127.0.0.1:PORT[/path]] [--demo NAME]

Bundles demos/<name>/main.ts (with Phaser, three and the capsule's sources) for every demo folder
that has an index.html, runs \`npm run build\` first when dist/ lacks a bundle a page loads from
/dist/ (as in a fresh clone), serves them and prints each page's URL. Stops on Ctrl-C or SIGTERM.

Served: /<name>/ (the folder: index.html, script.html, assets, and the bundled main.js),
        /dist/* (the built library), /vendor/phaser.min.js, and the WebSockets /pi and
        /characters/<id>. Every page is served with Content-Security-Policy:
        script-src 'self' (no eval, no inline script), as the package promises it works.
        A page says on itself what is wrong (pi or the gateway unreachable, an error).

Page parameters: ?agent=scripted (default), ?agent=pi, or (the Phaser demo)
?agent=mcp[&character=<id>]: the page lends that villager (default cleo) to the MCP clients of a
gateway started with --mcp, or ?agent=model[&character=<id>]: to the model of a gateway started
as \`aicc gateway model\`; ?characters=N, ?inspector=0.

Options
  --port N        the TCP port (default ${DEFAULT_DEMO_PORT}; 0 picks a free one)
  --gateway URL   an \`aicc gateway\` on this machine (ws://127.0.0.1:PORT/ in host mode,
                  ws://127.0.0.1:PORT/agents/<id> in relay mode). A page's WebSocket to /pi on
                  this server is joined to it, with the key from the environment variable
                  AICC_GATEWAY_KEY added here: the key never reaches the page or a log line.
                  Only this server's own pages may open /pi. The gateway sees a program (no
                  Origin), so it needs no --origin for this server. The page's protocol,
                  pi-peers.v1 (or pi-daemon.v2 for a gateway in --daemon mode), is passed on.
                  A page's /characters/<id> is joined to the gateway's /characters/<id> the
                  same way (aicc.v0.1 passed on); MCP clients then drive that character at
                  http://127.0.0.1:PORT/mcp/<id>, or, in model mode, the gateway's model does.
  --demo NAME     serve only this demo (repeatable)
  -h, --help      this help

Exit codes: 0 stopped by a signal, 1 failed (a demo does not build, the port is taken), 2 bad usage.
`;

export interface DemoWebArgs {
  port: number;
  gateway?: { url: string; key: string };
  demos: string[];
}

export interface DemoWebRuntime {
  env?: NodeJS.ProcessEnv;
  /** The repository (default: two folders above this module). */
  root?: string;
  /** Where the demos are (default: <root>/demos). */
  demosDir?: string;
  /** Stops the server when aborted (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** Parses the arguments; a string is the one-line complaint about them. */
export function parseDemoWebArgs(argv: string[], env: NodeJS.ProcessEnv = {}): DemoWebArgs | string {
  const args: DemoWebArgs = { port: DEFAULT_DEMO_PORT, demos: [] };
  let gatewayUrl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) return `${flag === undefined ? 'an option' : flag} expects a value`;
    i++;
    if (flag === '--port') {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < 0 || n > 65535) return `--port expects a whole number from 0 to 65535, got ${JSON.stringify(value.slice(0, 20))}`;
      args.port = n;
    } else if (flag === '--gateway') gatewayUrl = value;
    else if (flag === '--demo') args.demos.push(value);
    else return `unknown option "${flag.slice(0, 40)}"`;
  }
  if (gatewayUrl !== undefined) {
    const problem = gatewayProblem(gatewayUrl);
    if (problem !== undefined) return problem;
    const key = env.AICC_GATEWAY_KEY;
    if (key === undefined || key === '') return '--gateway needs the gateway key in the environment variable AICC_GATEWAY_KEY';
    const keyProblem = checkKeyFormat(key);
    if (keyProblem !== undefined) return `AICC_GATEWAY_KEY: ${keyProblem}`;
    args.gateway = { url: gatewayUrl, key };
  }
  return args;
}

/** The gateway listens on loopback only, and the key must not travel further than this machine. */
function gatewayProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `--gateway expects a URL such as ws://127.0.0.1:8787/, got ${JSON.stringify(text.slice(0, 60))}`;
  }
  if (url.protocol !== 'ws:') return `--gateway expects a ws:// URL (the gateway's), got ${url.protocol}`;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return `--gateway must be on this machine (127.0.0.1), got ${url.hostname.slice(0, 60)}`;
  if (url.username !== '' || url.password !== '') return '--gateway takes no user or password in the URL; the key comes from AICC_GATEWAY_KEY';
  return undefined;
}

export async function demoWebCommand(argv: string[], io: CliIo, runtime: DemoWebRuntime = {}): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout.write(HELP);
    return 0;
  }
  const args = parseDemoWebArgs(argv, runtime.env ?? process.env);
  if (typeof args === 'string') {
    io.stderr.write(`demo:web: ${args}; run \`npm run demo:web -- --help\`\n`);
    return 2;
  }
  const root = runtime.root ?? join(import.meta.dirname, '..', '..');
  const demosDir = runtime.demosDir ?? join(root, 'demos');
  const available = findDemos(demosDir);
  const unknown = args.demos.find((name) => !available.includes(name));
  if (unknown !== undefined) {
    io.stderr.write(`demo:web: no demo "${unknown.slice(0, 40)}"; the demos are: ${available.join(', ') || '(none)'}\n`);
    return 2;
  }
  if (available.length === 0) {
    io.stderr.write(`demo:web: no demo in ${demosDir} (a folder with index.html and main.ts)\n`);
    return 1;
  }
  try {
    const missing = missingDistFiles(demosDir, args.demos.length > 0 ? args.demos : available, root);
    if (missing.length > 0) {
      // A fresh clone after `npm ci` has no dist/, and the script-tag pages load their bundles from it.
      io.stderr.write(`demo:web: dist/ lacks ${missing.join(', ')}; running \`npm run build\` first…\n`);
      const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
      if (build.status !== 0) {
        io.stderr.write('demo:web: `npm run build` failed (see above)\n');
        return 1;
      }
    }
    const bundles = await bundleDemos(demosDir, args.demos.length > 0 ? args.demos : available);
    const server = await startDemoServer({
      root,
      demos: bundles,
      port: args.port,
      // The pages run as the package promises they can: no eval, no inline script.
      csp: DEMO_CSP,
      ...(args.gateway !== undefined && { gateway: args.gateway }),
      log: (line) => void io.stderr.write(`${line}\n`),
    });
    io.stdout.write(`demo:web: serving on ${server.url}\n`);
    const width = Math.max(...server.pages.map((page) => page.demo.length));
    for (const page of server.pages) io.stdout.write(`  ${page.demo.padEnd(width)}  ${page.url}\n`);
    io.stdout.write(
      args.gateway !== undefined
        ? `pages opened with ?agent=pi reach pi at ${args.gateway.url} through ${server.url.replace(/^http/, 'ws')}pi\n`
        : 'pages run their scripted agents; for ?agent=pi start an `aicc gateway` and pass --gateway (see --help)\n',
    );
    await untilStopped(runtime.signal);
    await server.close();
    return 0;
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** The files under /dist/ that the demos' pages load and dist/ does not hold. */
export function missingDistFiles(demosDir: string, demos: readonly string[], root: string): string[] {
  const wanted = new Set<string>();
  for (const name of demos) {
    for (const page of readdirSync(join(demosDir, name)).filter((file) => file.endsWith('.html'))) {
      for (const match of readFileSync(join(demosDir, name, page), 'utf8').matchAll(/["']\/dist\/([\w.-]+)["']/g)) wanted.add(match[1]!);
    }
  }
  return [...wanted].filter((file) => !existsSync(join(root, 'dist', file))).map((file) => `dist/${file}`);
}
