import { describe, expect, it } from 'vitest';
import { checkAgents, parseAgentSpec, parseNamedAgent } from '../../../src/node/eval/agentSpec.js';

describe('agent specs', () => {
  it('reads a policy and a model, with or without a server of its own', () => {
    expect(parseAgentSpec('policy:wanderer')).toEqual({ kind: 'policy', policy: 'wanderer' });
    expect(parseAgentSpec('model:openai/gpt-4o-mini')).toEqual({ kind: 'model', provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseAgentSpec('model:local/smollm2-135m@http://127.0.0.1:8080/v1')).toEqual({
      kind: 'model',
      provider: 'local',
      model: 'smollm2-135m',
      baseUrl: 'http://127.0.0.1:8080/v1',
    });
    expect(parseAgentSpec('model:openrouter/meta-llama/llama-3.1-8b')).toMatchObject({ provider: 'openrouter', model: 'meta-llama/llama-3.1-8b' });
    expect(parseAgentSpec('cmd:node bots/walker.js --fast')).toEqual({ kind: 'cmd', command: 'node bots/walker.js --fast' });
  });

  it('reads an MCP client, pi with a model or its own default, and a pi-daemon session with or without a model', () => {
    expect(parseAgentSpec('mcp:node bots/mcp-walker.mjs')).toEqual({ kind: 'mcp', command: 'node bots/mcp-walker.mjs' });
    expect(parseAgentSpec('pi:anthropic/claude-haiku-4-5')).toEqual({ kind: 'pi', provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(parseAgentSpec('pi:openrouter/meta-llama/llama-3.1-8b')).toEqual({ kind: 'pi', provider: 'openrouter', model: 'meta-llama/llama-3.1-8b' });
    expect(parseAgentSpec('pi:default')).toEqual({ kind: 'pi' });
    expect(parseAgentSpec('pi-daemon:/run/pi/daemon.sock')).toEqual({ kind: 'pi-daemon', socket: '/run/pi/daemon.sock' });
    expect(parseAgentSpec('pi-daemon:/tmp/d.sock#local/smol')).toEqual({ kind: 'pi-daemon', socket: '/tmp/d.sock', provider: 'local', model: 'smol' });
  });

  it('says what a spec looks like', () => {
    for (const bad of [
      '',
      'policy:',
      'model:gpt',
      'model:a/b@ftp://x',
      'world',
      'cmd:',
      'cmd:   ',
      'mcp:',
      'pi:',
      'pi:claude',
      'pi-daemon:',
      'pi-daemon:/s#gpt',
      'pi-daemon:#a/b',
    ])
      expect(() => parseAgentSpec(bad)).toThrow(
        /an agent spec is policy:NAME, model:PROVIDER\/MODEL.*mcp:COMMAND, pi:PROVIDER\/MODEL, pi:default or pi-daemon:SOCKET/,
      );
  });

  it('names an agent as given, or after its spec', () => {
    expect(parseNamedAgent('base=policy:world')).toEqual({ name: 'base', spec: 'policy:world' });
    expect(parseNamedAgent('policy:wanderer')).toEqual({ name: 'wanderer', spec: 'policy:wanderer' });
    expect(parseNamedAgent('model:openai/gpt-4o-mini')).toEqual({ name: 'gpt-4o-mini', spec: 'model:openai/gpt-4o-mini' });
    expect(parseNamedAgent('cmd:node bots/walker.js')).toEqual({ name: 'walker', spec: 'cmd:node bots/walker.js' });
    expect(parseNamedAgent('cmd:./my-bot --x')).toEqual({ name: 'my-bot', spec: 'cmd:./my-bot --x' });
    expect(parseNamedAgent('mcp:node bots/mcp-walker.mjs')).toEqual({ name: 'mcp-walker', spec: 'mcp:node bots/mcp-walker.mjs' });
    expect(parseNamedAgent('pi:anthropic/claude-haiku-4-5')).toMatchObject({ name: 'pi-claude-haiku-4-5' });
    expect(parseNamedAgent('pi:default')).toMatchObject({ name: 'pi-default' });
    expect(parseNamedAgent('pi-daemon:/tmp/d.sock')).toMatchObject({ name: 'pi-daemon' });
    expect(() => parseNamedAgent('__proto__=policy:world')).toThrow(/an agent's name is a letter then/);
  });

  it('wants one agent at least and a name each', () => {
    expect(checkAgents(['policy:world', { name: 'w', spec: 'policy:wanderer' }])).toEqual([
      { name: 'world', spec: 'policy:world' },
      { name: 'w', spec: 'policy:wanderer' },
    ]);
    expect(() => checkAgents([])).toThrow(/name at least one agent/);
    expect(() => checkAgents(['policy:world', 'world=policy:wanderer'])).toThrow(/two agents are named "world"/);
  });
});
