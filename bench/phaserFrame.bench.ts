// The capsule's share of a frame inside the Phaser demo: 50 characters, each driven by a scripted
// agent through the capsule's tool calls, in Debian's headless Chromium.
//
// What it measures: demos/phaser, bundled and served as `npm run demo:web` serves it, opened with
// `?characters=50&inspector=0`. The page counts, in `aiccDemo.frameStats()`, the frames Phaser ran
// and the milliseconds spent inside the capsule during them (the adapter's hooks, capsule.step and
// the synchronous delivery of messages and results). After the page is ready and warmed in, the
// bench reads frameStats twice, N frames apart; the figure is the capsule's milliseconds per frame.
//
// The baseline is the frame budget itself, 16.7 ms at 60 frames per second: the ratio is the share
// of a frame the capsule takes (target < 2%). The inspector is off, so its drawing is not counted;
// the scripted agents' own decisions run in the page too but outside the capsule's hooks, as a
// remote agent's would. Headless Chromium here has no GPU: Phaser renders with its software path,
// which slows the frame but not the capsule's part of it.

import { join } from 'node:path';
import { launchChromium } from '../test/e2e/browser/chromium.js';
import { DemoPage } from '../test/e2e/browser/harness.js';
import { bundleDemo } from '../src/node/demoWebBundle.js';
import { startDemoServer } from '../src/node/demoWebServer.js';
import { repoRoot, type BenchOptions, type BenchRow } from './row.js';

const FRAME_MS = 1000 / 60;
const TARGET = 0.02;
const CHARACTERS = 50;

interface FrameStats {
  frames: number;
  capsuleMs: number;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const frames = options.quick ? 20 : 1200;
  const warmInFrames = options.quick ? 5 : 120;
  const root = repoRoot(import.meta.url);
  const server = await startDemoServer({ root, demos: [await bundleDemo(join(root, 'demos'), 'phaser')], port: 0 });
  const browser = await launchChromium();
  try {
    const page = await DemoPage.open(browser.context, `${server.url}phaser/?characters=${CHARACTERS}&inspector=0`);
    const ready = await page.waitReady(30_000);
    if (ready.characters.length !== CHARACTERS) throw new Error(`bench/phaserFrame: the page runs ${ready.characters.length} characters, not ${CHARACTERS}`);
    const stats = (): Promise<FrameStats> => page.page.evaluate(() => (window as unknown as { aiccDemo: { frameStats(): FrameStats } }).aiccDemo.frameStats());
    // Frames come at the display's rate (about 60 a second); allow a loaded machine three times as long.
    const waitFrames = async (from: number, count: number): Promise<FrameStats> => {
      await page.page.waitForFunction(
        (target) => (window as unknown as { aiccDemo: { frameStats(): FrameStats } }).aiccDemo.frameStats().frames >= target,
        from + count,
        { timeout: 10_000 + count * FRAME_MS * 3, polling: 100 },
      );
      return stats();
    };
    const start = await waitFrames((await stats()).frames, warmInFrames);
    const end = await waitFrames(start.frames, frames);
    const calls = (await page.state()).calls;
    const problems = await page.problems();
    if (problems.length > 0) throw new Error(`bench/phaserFrame: the page logged errors: ${problems.slice(0, 3).join('; ')}`);
    const counted = end.frames - start.frames;
    const perFrame = (end.capsuleMs - start.capsuleMs) / counted;
    // A page that spent no measurable time in the capsule measured nothing: say so instead of 0.
    if (!(perFrame > 0)) throw new Error(`bench/phaserFrame: frameStats counted ${end.capsuleMs - start.capsuleMs} ms over ${counted} frames`);
    return [
      {
        name: `phaser demo: capsule time per frame, ${CHARACTERS} characters`,
        capsule: perFrame,
        baseline: FRAME_MS,
        unit: 'ms/frame',
        ratio: perFrame / FRAME_MS,
        note: `${((perFrame / FRAME_MS) * 100).toFixed(2)}% of a 16.7 ms frame over ${counted} frames after ${warmInFrames} (${calls} tool calls completed by then); headless Chromium, no GPU, scripted agents, inspector off; target < ${TARGET * 100}%`,
      },
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}
