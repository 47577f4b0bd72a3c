import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gatewayCommand, parseGatewayArgs } from '../../../src/node/cli/gatewayCommand.js';
import { BrowserClient, KEY, ORIGIN, tempDir, within } from './helpers.js';

const FAKE_PI = fileURLToPath(new URL('./fakePi.mjs', import.meta.url));

interface Run {
  code: Promise<number>;
  out: () => string;
  err: () => string;
  stop: () => void;
  /** Resolves with the ws:// URL once the gateway says it is listening. */
  url: () => Promise<string>;
}

function run(argv: string[], env: NodeJS.ProcessEnv = { AICC_GATEWAY_KEY: KEY }): Run {
  let out = '';
  let err = '';
  const controller = new AbortController();
  const code = gatewayCommand(
    argv,
    { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
    { env, signal: controller.signal },
  );
  const url = async (): Promise<string> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const match = /listening on (ws:\/\/\S+)\n/.exec(out);
      if (match) return match[1]!;
      if (Date.now() > deadline) throw new Error(`no listening line; stderr: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { code, out: () => out, err: () => err, stop: () => controller.abort(), url };
}

describe('aicc gateway', () => {
  it('explains modes, flags, the key, close codes and exit codes with --help', async () => {
    const r = run(['--help']);
    expect(await r.code).toBe(0);
    for (const text of [
      'relay',
      'host',
      '--origin',
      '--key',
      'AICC_GATEWAY_KEY',
      '--port',
      '--host 127.0.0.1',
      '--pi-bin',
      '--provider',
      '--model',
      '--system-prompt',
      '--peers-home',
      "'aicc-key.' + KEY",
      '4401',
      'Exit codes',
    ]) {
      expect(r.out()).toContain(text);
    }
  });

  it.each([
    [[], 'choose a mode: relay, host, model or --daemon SOCKET'],
    [['serve'], 'unknown mode "serve"; choose relay, host, model or --daemon SOCKET'],
    [['relay', '--peers-home', '/x'], 'name at least one --origin whose pages may connect, e.g. --origin http://localhost:5173'],
    [['relay', '--origin', ORIGIN], "relay needs the agents' folder: set PI_PEERS_HOME or pass --peers-home"],
    [['host', '--origin', ORIGIN, '--host', '0.0.0.0'], '--host: the gateway listens on 127.0.0.1 only'],
    [['host', '--origin', ORIGIN, '--port', '70000'], '--port expects a whole number up to 65535, got "70000"'],
    [['host', '--origin', ORIGIN, '--frobnicate', 'x'], 'unknown option "--frobnicate"'],
    [['host', '--origin'], '--origin expects a value'],
    [['relay', '--origin', ORIGIN, '--peers-home', '/x', '--model', 'm'], '--model is for host mode'],
    [
      ['relay', '--origin', 'localhost:5173', '--peers-home', '/x'],
      '--origin "localhost:5173" is not an origin; write it as scheme://host[:port], e.g. http://localhost:5173',
    ],
    [
      ['relay', '--origin', 'file:///game.html', '--peers-home', '/x'],
      '--origin "file:///game.html" is not an origin: file:// pages send the origin "null"; write null to admit them',
    ],
  ])('refuses %j in one line with exit code 2', async (argv, complaint) => {
    const r = run(argv);
    expect(await r.code).toBe(2);
    expect(r.err()).toBe(`aicc gateway: ${complaint}; run \`aicc gateway --help\`\n`);
  });

  it('wants a key, from --key or AICC_GATEWAY_KEY, and rejects a weak one with exit code 2', async () => {
    const none = run(['relay', '--origin', ORIGIN, '--peers-home', '/x'], {});
    expect(await none.code).toBe(2);
    expect(none.err()).toBe('aicc gateway: no gateway key: set AICC_GATEWAY_KEY (or pass --key); run `aicc gateway --help`\n');
    const weak = run(['relay', '--origin', ORIGIN, '--peers-home', '/x', '--key', 'short'], {});
    expect(await weak.code).toBe(2);
    expect(weak.err()).toBe(
      'aicc gateway: --key: the gateway key must be at least 16 characters (got 5); generate one with `openssl rand -hex 24`; run `aicc gateway --help`\n',
    );
    const weakEnv = run(['relay', '--origin', ORIGIN, '--peers-home', '/x'], { AICC_GATEWAY_KEY: 'has spaces in it, sixteen+' });
    expect(await weakEnv.code).toBe(2);
    expect(weakEnv.err()).toMatch(/^aicc gateway: AICC_GATEWAY_KEY: the gateway key may hold only letters, digits/);
  });

  it('takes the Node to run a .js pi with, for pi 1.x on Node 22', () => {
    expect(
      parseGatewayArgs(['host', '--origin', ORIGIN, '--pi-bin', 'pi1/dist/cli.js', '--pi-node', '/opt/node22/bin/node'], { AICC_GATEWAY_KEY: KEY }),
    ).toMatchObject({ piBin: 'pi1/dist/cli.js', piNode: '/opt/node22/bin/node' });
  });

  it('takes --mcp-idle-s with --mcp only, in seconds', () => {
    const env = { AICC_GATEWAY_KEY: KEY };
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--mcp', '--mcp-idle-s', '90'], env)).toMatchObject({ mcp: true, mcpIdleMs: 90_000 });
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--mcp-idle-s', '90'], env)).toBe('--mcp-idle-s goes with --mcp');
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--mcp', '--mcp-idle-s', '0'], env)).toMatch(/^--mcp-idle-s /);
  });

  it('takes --mcp-character for host mode with --mcp only', () => {
    const env = { AICC_GATEWAY_KEY: KEY };
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--mcp', '--mcp-character', 'cleo'], env)).toMatchObject({
      mode: 'host',
      mcp: true,
      mcpCharacter: 'cleo',
    });
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--mcp-character', 'cleo'], env)).toBe(
      '--mcp-character needs --mcp (the hosted pi reaches the character through the gateway)',
    );
    expect(parseGatewayArgs(['relay', '--origin', ORIGIN, '--peers-home', '/peers', '--mcp', '--mcp-character', 'cleo'], env)).toBe(
      '--mcp-character is for host mode',
    );
  });

  it('takes model mode: --provider and --model required, --base-url, --max-tokens and --max-concurrent for it alone', () => {
    const env = { AICC_GATEWAY_KEY: KEY };
    const model = ['model', '--origin', ORIGIN, '--provider', 'local', '--model', 'smollm2'];
    expect(parseGatewayArgs([...model, '--base-url', 'http://127.0.0.1:8080/v1', '--max-tokens', '64', '--max-concurrent', '3'], env)).toMatchObject({
      mode: 'model',
      provider: 'local',
      model: 'smollm2',
      baseUrl: 'http://127.0.0.1:8080/v1',
      maxTokens: 64,
      maxConcurrent: 3,
    });
    expect(parseGatewayArgs(['model', '--origin', ORIGIN, '--provider', 'local'], env)).toMatch(/^model mode needs --provider and --model/);
    expect(parseGatewayArgs([...model, '--mcp'], env)).toMatch(/MCP clients cannot drive them too/);
    expect(parseGatewayArgs([...model, '--base-url', '127.0.0.1:8080'], env)).toMatch(/^--base-url takes an http:\/\/ or https:\/\/ URL/);
    expect(parseGatewayArgs([...model, '--pi-bin', 'pi'], env)).toBe('--pi-bin is for host mode');
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--max-tokens', '64'], env)).toBe('--max-tokens is for model mode');
    expect(parseGatewayArgs(['host', '--origin', ORIGIN, '--base-url', 'http://127.0.0.1:1/v1'], env)).toBe('--base-url is for model mode');
  });

  it('in model mode, exits 1 naming what to install or configure when the model cannot be loaded, never the key', async () => {
    // A provider pi-ai does not know, with no base URL: refused before listening.
    const r = run(['model', '--origin', ORIGIN, '--provider', 'nowhere', '--model', 'nothing'], { AICC_GATEWAY_KEY: KEY });
    expect(await r.code).toBe(1);
    expect(r.err()).toMatch(/^aicc gateway: .*(no model nowhere\/nothing|no key for nowhere|not installed)/);
    expect(r.out() + r.err()).not.toContain(KEY);
  });

  it('reads PI_PEERS_HOME and AICC_GATEWAY_KEY from the environment', () => {
    expect(parseGatewayArgs(['relay', '--origin', ORIGIN], { PI_PEERS_HOME: '/peers', AICC_GATEWAY_KEY: KEY })).toEqual({
      mode: 'relay',
      origins: [ORIGIN],
      port: 0,
      key: KEY,
      peersHome: '/peers',
    });
  });

  it('relays until stopped, prints where it listens, logs each connection, and exits 0', async () => {
    const peers = tempDir('aicc-cmd-peers-');
    const r = run(['relay', '--origin', ORIGIN, '--origin', 'http://127.0.0.1:8080', '--peers-home', peers.path]);
    const url = await r.url();
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/);
    const client = BrowserClient.connect(`${url}agents/nobody`);
    await client.hello().catch(() => undefined);
    await within(client.closed, 'the close');
    r.stop();
    expect(await r.code).toBe(0);
    expect(r.err()).toMatch(/aicc gateway: #1 origin http:\/\/localhost:5173 relay to an unknown agent \(an id of 6 characters\): closed \(4404\)/);
    expect(r.out() + r.err()).not.toContain(KEY);
    peers.remove();
  });

  it("exits 1 with pi's complaint when the hosted pi cannot start", async () => {
    const r = run(['host', '--origin', ORIGIN, '--pi-bin', FAKE_PI], { AICC_GATEWAY_KEY: KEY, FAKE_PI_FAIL_START: '1' });
    expect(await r.code).toBe(1);
    // What went wrong and what to look at, not the function that noticed it (PiProcess.start).
    expect(r.err()).toBe('aicc gateway: pi exited (code 1); pi said: fake pi: no model configured\n');
  });

  it('runs a --pi-bin given relative to the current folder, though pi runs in a folder of its own', async () => {
    const r = run(['host', '--origin', ORIGIN, '--pi-bin', relative(process.cwd(), FAKE_PI)], { AICC_GATEWAY_KEY: KEY, FAKE_PI_FAIL_START: '1' });
    expect(await r.code).toBe(1);
    expect(r.err()).toBe('aicc gateway: pi exited (code 1); pi said: fake pi: no model configured\n');
  });

  it('names --pi-bin when pi is not there', async () => {
    const r = run(['host', '--origin', ORIGIN, '--pi-bin', '/nonexistent/pi']);
    expect(await r.code).toBe(1);
    expect(r.err()).toBe('aicc gateway: pi could not be started (ENOENT); check --pi-bin\n');
  });

  it('exits 1 when the hosted pi exits while serving', async () => {
    // FAKE_PI_* reach the fake pi through the environment the command passes on.
    const r = run(['host', '--origin', ORIGIN, '--pi-bin', FAKE_PI, '--label', 'Ada'], { AICC_GATEWAY_KEY: KEY, FAKE_PI_RUN_MS: '10' });
    const client = BrowserClient.connect(await r.url());
    expect(await client.hello()).toMatchObject({ success: true, data: { agent: { label: 'Ada' } } });
    client.send({ id: 'd', type: 'prompt', message: 'die' });
    expect(await r.code).toBe(1);
    expect(r.err()).toMatch(/aicc gateway: pi exited \(code 3\); pi said: fake pi: dying as asked\n$/);
  });
});
