// @vitest-environment jsdom
// docs/PHASER.md's example runs as written: its create() body, in a headless scene with the plugin.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { connectInProcess } from '../../../src/agent/inProcess.js';
import { makeTexture, play, stage, type Stage } from './harness.js';

// Read from the repository root (vitest's working directory): under jsdom import.meta.url is not a file URL.
const doc = readFileSync(join(process.cwd(), 'docs', 'PHASER.md'), 'utf8');

let s: Stage | undefined;
afterEach(() => s?.destroy());

it('the NPC example walks Mira and has her speak', async () => {
  const block = doc.match(/## An NPC in a few lines\n\n```ts[^\n]*\n([\s\S]*?)```/)![1]!;
  const body = block.match(/async function create\(this: [^)]*\) \{\n([\s\S]*)\n\}\n$/)![1]!;
  expect(block).toContain('aiccScenePlugin({ perceptionRadius: 300 })');
  // The names the body uses, as the example imports them.
  expect(block).toContain("import { connectInProcess } from 'aicc-capsule';");
  // A headless game has no renderer to draw the texture with: the harness makes 'npc' instead (the
  // browser test, test/e2e/browser/csp.test.ts, runs the line as written). The say's answer is kept.
  const drawn = /^ *this\.add\.graphics\(\)[^\n]*\.generateTexture\('npc'[^\n]*\n/m;
  const say = "await agent.call('say',";
  expect(body).toMatch(drawn);
  expect(body).toContain(say);
  const headless = body.replace(drawn, '').replace(say, `const said = ${say}`);
  s = await stage({ plugin: { perceptionRadius: 300 } });
  makeTexture(s.scene, 'npc');
  const create = new Function('connectInProcess', `return async function create() {\n${headless}\nreturn { walk, said, mira };\n};`)(connectInProcess);
  let outcome: { walk: unknown; said: unknown; mira: { x: number; y: number } } | undefined;
  const running = (create.call(s.scene) as Promise<typeof outcome>).then((value) => (outcome = value));
  // The plugin's capsule runs fixed ticks: the calls are answered as the scene updates.
  for (let frame = 0; frame < 120 && outcome === undefined; frame++) await play(s, 1);
  await running;
  expect(outcome!.walk).toMatchObject({ ok: true, output: { from: { x: 200, y: 200 }, to: { x: 400, y: 300 } } });
  expect(outcome!.said).toMatchObject({ ok: true, output: { text: 'Hello, traveller!', heard_by: [] } });
  await play(s, 200);
  expect([Math.round(outcome!.mira.x), Math.round(outcome!.mira.y)]).toEqual([400, 300]);
});
