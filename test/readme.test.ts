import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as aicc from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with the two set-up commands', () => {
    const firstBlock = readme.split('```')[1]!;
    expect(firstBlock).toContain('npm ci && npm run demo');
    expect(firstBlock).toContain('npm test');
  });

  it('its example wires a character to an agent and makes a call', async () => {
    const example = readme.match(/## Wire one character to an agent\n\n```ts\n([\s\S]*?)```/)![1]!;
    const body = example
      .replace(/^import .*$/m, '')
      .replace(/handler: \(\{ dir \}\)/, 'handler: ({ dir }: { dir: string })');
    // Run the example with the library in scope and hand back what it computed.
    const run = new Function('aicc', `return (async () => { const { createCapsule, createMemoryLinkPair, AgentClient } = aicc; ${body.replace(/: \{ dir: string \}/, '')}; return { result, wren, capsule }; })();`);
    const { result, wren, capsule } = await run(aicc);
    expect(result).toMatchObject({ ok: true, output: { x: 1 }, meta: { source: 'handler' } });
    expect(wren).toEqual({ x: 1, y: 0 });
    capsule.dispose();
  });
});
