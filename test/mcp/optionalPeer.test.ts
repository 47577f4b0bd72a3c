// @modelcontextprotocol/sdk is an optional peer dependency: only aicc-capsule/mcp needs it. No other
// entry — the CLI included — reaches it through a static import; the CLI loads it with import() for
// `aicc demo --agent mcp` and the gateway's --mcp alone.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../importGraph.js';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const MCP_SDK = /^@modelcontextprotocol\/sdk(\/|$)/;

describe('the optional peer @modelcontextprotocol/sdk', () => {
  it('is what aicc-capsule/mcp is built on (this check is looking at something)', () => {
    expect([...importGraph(`${src}mcp/index.ts`).bare].filter((name) => MCP_SDK.test(name)).length).toBeGreaterThan(0);
  });

  it.each([
    'index.ts',
    'core.ts',
    'node/index.ts',
    'node/cli/bin.ts',
    'research/index.ts',
    'worlds/index.ts',
    'node/queue/index.ts',
    'agent/pilot/index.ts',
    'adapters/phaser/index.ts',
  ])('is not imported statically from %s', (entry) => {
    const { files, bare } = importGraph(`${src}${entry}`);
    expect([...bare].filter((name) => MCP_SDK.test(name))).toEqual([]);
    // Only the SDK-free news module (the gateway keeps one per lent character) may be reached.
    expect(files.filter((file) => file.includes('/src/mcp/') && !file.endsWith('/mcp/characterNews.ts'))).toEqual([]);
  });
});
