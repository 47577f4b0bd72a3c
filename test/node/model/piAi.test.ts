// The direct model backend on the real pi-ai (0.73 on this Node) against a scripted
// OpenAI-compatible server: `aicc demo --agent model:PROVIDER/MODEL --base-url URL` drives Cleo
// with native tool calls, refusals come back to the model as tool errors, and the key stays out of
// everything the run shows.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/node/cli/main.js';
import { requestHash } from '../../../src/agent/model/cassette.js';
import type { ModelRequest } from '../../../src/agent/model/modelPort.js';
import { piAiModel } from '../../../src/node/model/piAi.js';
import { startStubModel, type StubModel } from '../../e2e/stubModel.js';
import { tempDir } from '../gateway/helpers.js';

const FAKE_PI = fileURLToPath(new URL('../gateway/fakePi.mjs', import.meta.url));

function io() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } } };
}

describe('the direct model backend through pi-ai', () => {
  let stub: StubModel | undefined;
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(async () => {
    await stub?.close();
    dir?.remove();
  });

  it('drives Cleo with native tool calls; a refused call reaches the model as a tool error with what to do', async () => {
    stub = await startStubModel({ fallbackReply: 'I wait.' });
    stub.script(
      // Going north from the Tavern is refused by the game: the model is told so, and tries another way.
      { text: '', toolCalls: [{ name: 'go', arguments: { direction: 'north' } }], usage: { promptTokens: 900, completionTokens: 12 } },
      { text: '', toolCalls: [{ name: 'go', arguments: { direction: 'south' } }] },
      { text: '', toolCalls: [{ name: 'say', arguments: { text: 'Hello, market!' } }] },
      'Done for now.',
    );
    dir = tempDir('aicc-model-demo-');
    const record = join(dir.path, 'day.ndjson');
    const { out, io: cli } = io();
    const code = await main(['demo', '--agent', 'model:local/stub-model', '--base-url', stub.baseUrl, '--ticks', '40', '--record', record], cli);
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    expect(out.stdout).toContain('Cleo walks south from the Tavern to the Market.');
    expect(out.stdout).toContain('Cleo says: "Hello, market!"');
    // The first request: the briefing for native tools, and the villager's tools as the model's own.
    const first = stub.requests[0]!.body as unknown as {
      messages: Array<{ role: string; content: unknown }>;
      tools: Array<{ function: { name: string; parameters: object } }>;
    };
    expect(first.tools.map((tool) => tool.function.name)).toEqual(expect.arrayContaining(['look', 'go', 'say']));
    expect(JSON.stringify(first.messages)).toContain('These tools are your own tools');
    // The refusal went back as the tool's result, with what to do.
    const second = stub.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> };
    const toolResult = second.messages.find((m) => m.role === 'tool');
    expect(JSON.stringify(toolResult?.content)).toMatch(/go refused \(invalid_input|execution_failed/);
    // Append-only between folds: each request starts with the one before it.
    const asText = (i: number) => (stub!.requests[i]!.body as { messages: unknown[] }).messages.map((m) => JSON.stringify(m));
    expect(asText(2).slice(0, asText(1).length)).toEqual(asText(1));
    // Decisions are recorded with their calls and tokens.
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const decisions = lines.filter((line) => 'decision' in line).map((line) => line['decision'] as Record<string, number | string>);
    expect(decisions[0]).toMatchObject({ decision: 1, calls: 3, ended: 'replied', inputTokens: 900, outputTokens: 12 });
  }, 30_000);

  it('records a cassette: the replay re-runs world and pilot with zero model calls, line for line, story for story', async () => {
    stub = await startStubModel({ fallbackReply: 'I wait.' });
    stub.script(
      { text: '', toolCalls: [{ name: 'go', arguments: { direction: 'north' } }] },
      { text: '', toolCalls: [{ name: 'go', arguments: { direction: 'south' } }] },
      { text: '', toolCalls: [{ name: 'say', arguments: { text: 'Hello, market!' } }] },
      'Done for now.',
      { text: '', toolCalls: [{ name: 'look', arguments: {} }] },
    );
    dir = tempDir('aicc-model-cassette-');
    const record = join(dir.path, 'day.ndjson');
    const day = io();
    expect(await main(['demo', '--agent', 'model:local/stub-model', '--base-url', stub.baseUrl, '--ticks', '60', '--record', record], day.io)).toBe(0);
    const calls = stub.requests.length;
    expect(calls).toBeGreaterThanOrEqual(5);
    const valid = io();
    expect(await main(['validate', record], valid.io)).toBe(0);
    expect(valid.out.stdout).toMatch(new RegExp(`${calls} model exchanges, 2 state hashes`));
    await stub.close();
    stub = undefined;
    // No model anywhere now: the replay answers every turn from the cassette.
    const again = io();
    expect(await main(['replay', record], again.io)).toBe(0);
    expect(again.out.stdout).toContain(`model turns: ${calls} answered from the cassette, 0 model calls`);
    expect(again.out.stdout).toMatch(/replay: every line matched \(\d+ lines, 2 state hashes equal\)/);
    const story = day.out.stdout.slice(0, day.out.stdout.indexOf('\n\n'));
    expect(again.out.stdout.startsWith(`${story}\n\n`)).toBe(true);

    // The run killed: its last lines never written, the one before cut mid-way. Replayed up to the last whole line.
    const text = readFileSync(record, 'utf8');
    const whole = text.split('\n').slice(0, -6);
    const killed = join(dir.path, 'killed.ndjson');
    writeFileSync(killed, `${whole.join('\n')}\n${text.split('\n').at(-6)!.slice(0, 25)}`);
    const cut = io();
    expect(await main(['replay', killed], cut.io)).toBe(0);
    expect(cut.out.stderr).toMatch(new RegExp(`cut off mid-line: .*; replaying it up to its last whole line \\(line ${whole.length}, tick \\d+\\)\n$`));
    expect(cut.out.stdout).toMatch(/replay: every line matched/);

    // A fork at tick 50: rebuilt from the cassette (its hash there as recorded), then Cleo's scripted role, then another model.
    const fork = join(dir.path, 'fork.ndjson');
    const forked = io();
    expect(await main(['replay', record, '--until', '50', '--then', 'scripted', '--record', fork], forked.io)).toBe(0);
    const hashAt50 = readFileSync(record, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('{"tick":50,') && line.includes('"hash"'))!;
    expect(forked.out.stdout).toContain(
      `fork: tick 50 rebuilt from the cassette (${calls} model turns, 0 model calls), state hash ${(JSON.parse(hashAt50) as { hash: string }).hash} as recorded; then scripted`,
    );
    expect(forked.out.stdout).toContain('Cleo is handed over to the scripted role.');
    const forkHeader = JSON.parse(readFileSync(fork, 'utf8').split('\n')[0]!) as {
      options: { parent: { recording: string; tick: number }; pilot: { agent: string } };
    };
    expect(forkHeader.options).toMatchObject({
      parent: { recording: expect.stringMatching(/^day\.ndjson sha256:[0-9a-f]{16}$/), tick: 50 },
      pilot: { agent: 'scripted' },
    });
    expect(await main(['validate', fork], io().io)).toBe(0);
    stub = await startStubModel({ fallbackReply: 'I wait.' });
    stub.script({ text: '', toolCalls: [{ name: 'say', arguments: { text: 'A new voice.' } }] });
    const other = io();
    expect(await main(['replay', record, '--until', '50', '--then', 'model:local/other', '--base-url', stub.baseUrl], other.io)).toBe(0);
    expect(other.out.stdout).toContain('Cleo says: "A new voice."');
    expect(stub.requests[0]!.body.model).toBe('other');
    expect(JSON.stringify(stub.requests[0]!.body.messages![0])).not.toContain('Mind the old well.');
    // Another prompt from the same tick: the model's system message is the one given.
    const before = stub.requests.length;
    const prompted = io();
    const withPrompt = ['--then', 'model:local/other', '--base-url', stub.baseUrl, '--system-prompt', 'You are Cleo. Mind the old well.'];
    expect(await main(['replay', record, '--until', '50', ...withPrompt], prompted.io)).toBe(0);
    expect(stub.requests[before]!.body.messages![0]).toMatchObject({ role: 'system', content: 'You are Cleo. Mind the old well.' });
    await stub.close();
    stub = undefined;
    // pi from the same tick (a stand-in for pi --mode rpc here; test/e2e runs the real one): briefed, and the fork says so.
    const piLog = join(dir.path, 'pi.log');
    process.env['FAKE_PI_LOG'] = piLog;
    const byPi = io();
    try {
      expect(await main(['replay', record, '--until', '50', '--then', 'pi', '--pi-bin', FAKE_PI, '--record', fork], byPi.io)).toBe(0);
    } finally {
      delete process.env['FAKE_PI_LOG'];
    }
    expect(byPi.out.stdout).toContain('Cleo is handed over to another agent.');
    expect(byPi.out.stdout).toContain('; then pi\n');
    expect(readFileSync(piLog, 'utf8')).toContain('Cleo');
    expect(JSON.parse(readFileSync(fork, 'utf8').split('\n')[0]!)).toMatchObject({ options: { pilot: { agent: 'pi' } } });
    // Flags that belong to another --then are named.
    const wrong = io();
    expect(await main(['replay', record, '--until', '50', '--then', 'scripted', '--pi-bin', FAKE_PI], wrong.io)).toBe(2);
    expect(wrong.out.stderr).toBe('aicc replay: --pi-bin goes with --then pi; run `aicc replay --help`\n');
    expect(await main(['replay', record, '--until', '50', '--then', 'pi', '--system-prompt', 'x'], wrong.io)).toBe(2);
    expect(wrong.out.stderr).toContain('--system-prompt goes with --then model:PROVIDER/MODEL');

    // A cassette recorded with another version of the briefing ("Your aim:" where this one says
    // "Your goal:"), its hashes true to what it sent: the replay names the first divergence.
    const older = readFileSync(record, 'utf8')
      .split('\n')
      .map((line) => {
        if (!line.includes('"exchange"')) return line;
        const parsed = JSON.parse(line) as { exchange: { hash: string; request: ModelRequest } };
        parsed.exchange.request = JSON.parse(JSON.stringify(parsed.exchange.request).replaceAll('Your goal: ', 'Your aim: ')) as ModelRequest;
        parsed.exchange.hash = requestHash(parsed.exchange.request);
        return JSON.stringify(parsed);
      });
    writeFileSync(record, older.join('\n'));
    const changed = io();
    const code = await main(['replay', record], changed.io);
    expect(changed.out.stdout).toMatch(
      /first divergence: tick \d+, cleo, model turn 1 \(recording line \d+\): message 1 \(user\) differs\n {2}recorded: .*Your aim: .*\n {2}replayed: .*Your goal: /,
    );
    expect(code).toBe(1);
  }, 60_000);

  it('a cassette edited, from another seed or another world: refused or replayed to its first mismatch, naming the line', async () => {
    stub = await startStubModel({ fallbackReply: 'I wait.' });
    stub.script(
      { text: '', toolCalls: [{ name: 'go', arguments: { direction: 'north' } }] },
      { text: '', toolCalls: [{ name: 'say', arguments: { text: 'Hello, market!' } }] },
      'Done for now.',
    );
    dir = tempDir('aicc-model-cassette-bad-');
    const record = join(dir.path, 'day.ndjson');
    expect(await main(['demo', '--agent', 'model:local/stub-model', '--base-url', stub.baseUrl, '--ticks', '60', '--record', record], io().io)).toBe(0);
    await stub.close();
    stub = undefined;
    const lines = readFileSync(record, 'utf8').trimEnd().split('\n');
    const variant = (name: string, edit: (line: string, index: number) => string): string => {
      const path = join(dir!.path, `${name}.ndjson`);
      writeFileSync(path, `${lines.map(edit).join('\n')}\n`);
      return path;
    };
    const replay = async (path: string) => {
      const run = io();
      const code = await main(['replay', path], run.io);
      return { code, text: run.out.stdout + run.out.stderr };
    };
    const firstExchange = lines.findIndex((line) => line.includes('"exchange"'));

    // A request edited by hand, its hash left as it was: the line no longer holds what it claims.
    const edited = variant('edited', (line, i) => (i === firstExchange ? line.replace('Your goal: ', 'Your goal (edited): ') : line));
    const refusedEdit = await replay(edited);
    expect(refusedEdit.code).not.toBe(0);
    expect(refusedEdit.text).toMatch(
      new RegExp(`first line that differs: ${firstExchange + 1}\n  recorded: .*Your goal \\(edited\\): .*\n  replayed: .*Your goal: `),
    );

    // A reply edited (the model "said" another thing): the world goes elsewhere; the first state hash that differs is named.
    const reply = variant('reply', (line, i) => (i === firstExchange ? line.replace('"direction":"north"', '"direction":"south"') : line));
    const diverged = await replay(reply);
    expect(diverged.code).toBe(1);
    expect(diverged.text).toMatch(/line \d+/);
    expect(diverged.text).not.toMatch(/every line matched/);

    // The header says another seed, or another world: the replay cannot be the recorded run.
    const header = JSON.parse(lines[0]!) as { seed: number; world: string };
    for (const [name, changed] of [
      ['seed', { ...header, seed: header.seed + 1 }],
      ['world', { ...header, world: 'nowhere' }],
    ] as const) {
      const other = await replay(variant(name, (line, i) => (i === 0 ? JSON.stringify(changed) : line)));
      expect(other.code, `${name}: ${other.text}`).not.toBe(0);
      expect(other.text, name).toMatch(/line \d+|world|seed/);
      expect(other.text, name).not.toMatch(/every line matched/);
    }
  }, 60_000);

  it('keeps the key out of errors, even one that echoes it', async () => {
    const secret = 'sk-echo-0a1b2c3d4e5f';
    // A server that answers 401 quoting the key it got, as some proxies do.
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad key ${String(req.headers.authorization)}` } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const model = await piAiModel({ provider: 'local', model: 'm', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: secret });
      const reply = await model.turn(
        { systemPrompt: 's', messages: [{ role: 'user', content: 'hi', timestamp: 0 }], tools: [] },
        { signal: new AbortController().signal, onToken: () => {} },
      );
      expect(reply.stopReason).toBe('error');
      // The server's words came through, the key in them replaced.
      expect(reply.errorMessage).toContain('bad key Bearer [key]');
      expect(JSON.stringify(reply)).not.toContain(secret);
    } finally {
      server.close();
    }
  });

  it('says what to install or set when the model cannot be reached', async () => {
    await expect(piAiModel({ provider: 'anthropic', model: 'no-such-model-id' })).rejects.toThrow(/has no model anthropic\/no-such-model-id in its catalog/);
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      await expect(piAiModel({ provider: 'openai', model: 'gpt-4o-mini', agentDir: '/nonexistent' })).rejects.toThrow(/no key for openai/);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });
});
