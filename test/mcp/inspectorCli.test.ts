// `aicc demo --agent mcp` as a third-party MCP client meets it: the MCP Inspector CLI
// (@modelcontextprotocol/inspector-cli 1.0.3, its published bin, in --cli mode) starts the built CLI
// as its stdio server, makes one request, prints the result as JSON and hangs up — so each request
// here is a run of its own against a freshly started village: list Cleo's tools, call `look`, call
// `go` with a wrong argument and get the refusal back as an isError result, read her news resource.
//
// Every run is bounded in time, and ends with every process it started: the inspector runs in a
// process group of its own (its wrapper, its CLI and the demo it spawns all inherit it), and when it
// has exited the group must be empty — the inspector closed its server, and the demo ended its day.
//
// The Inspector CLI cannot show notifications (it makes one request and exits), so list_changed and
// resource subscriptions are pinned with the SDK's Client (test/mcp/serveMcp.test.ts), not here.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const inspector = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');
/** The longest one inspector run may take: it starts three Node processes on a loaded machine. */
const RUN_MS = 20_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Sends `signal` to every process of group `pgid`; false when none is left (zombies count: not reaped yet). */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * One `mcp-inspector-cli --cli <demo> --method …` run against a fresh `aicc demo --agent mcp` (the
 * inspector's bin starts its CLI as `node` from the PATH, and that starts the command given). Its
 * working directory is the inspector's own build/ folder: 1.0.3 probes for its package.json relative
 * to the working directory but imports it relative to its module, and fails unless the two agree
 * (modelcontextprotocol/inspector#1334).
 */
async function inspect(...request: string[]): Promise<Run> {
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  const argv = [inspector, '--cli', process.execPath, cli, 'demo', '--agent', 'mcp', '--ticks', '300', ...request];
  const child = spawn(process.execPath, argv, { cwd: dirname(inspector), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = child.pid!;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    signalGroup(pgid, 'SIGKILL');
  }, RUN_MS);
  const [code, signal] = (await new Promise((resolve) => child.once('close', (...end) => resolve(end)))) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  // The inspector waits for its server to close before it exits: nothing of the run is left now.
  const stray = signalGroup(pgid, 0);
  if (stray) signalGroup(pgid, 'SIGKILL');
  if (timedOut) throw new Error(`the inspector run ${request.join(' ')} took over ${RUN_MS} ms; stderr:\n${stderr}`);
  expect(stray, `a process of the inspector run ${request.join(' ')} outlived it`).toBe(false);
  return { code, signal, stdout, stderr };
}

/** The run's result: it succeeded and its standard output is nothing but the JSON result. */
function result(run: Run): Record<string, unknown> {
  expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

type Tool = { name: string; inputSchema: { properties?: Record<string, unknown> }; annotations?: { readOnlyHint?: boolean } };
type ToolResult = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

describe('aicc demo --agent mcp, driven by the MCP Inspector CLI', () => {
  it("lists Cleo's tools with their schemas and annotations, observe among them", async () => {
    const { tools } = result(await inspect('--method', 'tools/list')) as { tools: Tool[] };
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['look', 'go', 'say', 'take', 'observe']));
    expect(byName.get('look')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('go')!.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('go')!.inputSchema.properties).toHaveProperty('direction');
  }, 30_000);

  it('calls look: the room comes back as structured content and as text', async () => {
    const look = result(await inspect('--method', 'tools/call', '--tool-name', 'look')) as ToolResult;
    expect(look.isError).toBeUndefined();
    expect(look.structuredContent).toMatchObject({ id: 'tavern', name: 'Tavern' });
    expect(look.content[0]!.text).toContain('name: Tavern');
  }, 30_000);

  it('calls go with an argument it does not take: an isError result naming invalid_input and what to do', async () => {
    const wrong = result(await inspect('--method', 'tools/call', '--tool-name', 'go', '--tool-arg', 'to=south')) as ToolResult;
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent).toBeUndefined();
    expect(wrong.content).toHaveLength(1);
    expect(wrong.content[0]!.text).toMatch(/^go refused \(invalid_input\): go: input\.direction is required\. What to do: fix the arguments/);
  }, 30_000);

  it("reads Cleo's news resource: what happened since the last read", async () => {
    const uri = 'aicc://cleo/news';
    const { contents } = result(await inspect('--method', 'resources/read', '--uri', uri)) as {
      contents: Array<{ uri: string; mimeType: string; text: string }>;
    };
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'text/plain' });
    expect(contents[0]!.text).toMatch(/^tick \d+/);
  }, 30_000);
});
