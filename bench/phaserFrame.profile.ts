// Profiles the Phaser demo page as bench/phaserFrame.bench.ts runs it (50 characters, scripted agents,
// inspector off) through Chromium's DevTools protocol, and prints where the page's time went, mapped
// back to source lines through the demo bundle's source map. The capsule's part is the rows under
// src/; Phaser's own rows and the scripted agents' (demos/) are the rest of the frame.
//
//   npx tsx bench/phaserFrame.profile.ts [--seconds 10] [--top 30]

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { launchChromium } from '../test/e2e/browser/chromium.js';
import { DemoPage } from '../test/e2e/browser/harness.js';
import { bundleDemo } from '../demos/server/bundle.js';
import { startDemoServer } from '../demos/server/server.js';
import { report, type Profile } from './profileTop.js';
import { repoRoot } from './row.js';
import { SourceLookup, type SourceMapV3 } from './sourceMap.js';

function option(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at >= 0 ? Number(argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`bench/phaserFrame.profile: ${name} must be a whole number >= 1`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const seconds = option(argv, '--seconds', 10);
  const top = option(argv, '--top', 30);
  const root = repoRoot(import.meta.url);
  const demo = await bundleDemo(join(root, 'demos'), 'phaser');
  const map = demo.files.get('main.js.map');
  if (map === undefined) throw new Error('bench/phaserFrame.profile: the demo bundle has no main.js.map');
  const lookup = new SourceLookup(JSON.parse(new TextDecoder().decode(map)) as SourceMapV3);
  const server = await startDemoServer({ root, demos: [demo], port: 0 });
  const browser = await launchChromium();
  try {
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?characters=50&inspector=0`);
    await page.waitReady(30_000);
    await page.page.waitForTimeout(3000);
    const cdp = await browser.context.newCDPSession(page.page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.page.waitForTimeout(seconds * 1000);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    const placeOf = (url: string, line: number, column: number): string => {
      if (!url.endsWith('/phaser/main.js')) return url;
      const found = lookup.find(line, column);
      return found === undefined ? 'bundle' : `${relative(root, resolve(demo.dir, found.source))}:${found.line}`;
    };
    const out = join(root, 'node_modules', '.cache', 'aicc-bench');
    mkdirSync(out, { recursive: true });
    const file = join(out, 'phaser-frame.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    process.stdout.write(`phaser demo, 50 characters, ${seconds} s:\n${report(profile, top, placeOf).join('\n')}\n\nprofile: ${relative(root, file)}\n`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
