// Launches Debian's Chromium through playwright-core for the browser tests and the Phaser benchmark:
// headless, no GPU, no network of its own, a fresh profile each launch. `npx playwright install`
// cannot work on this machine; Chromium comes from `apt-get install chromium` (.ci/run does it).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** /usr/lib/chromium/chromium, not /usr/bin/chromium: the wrapper script prints a stray shell error. */
export const CHROMIUM_PATH = process.env.AICC_CHROMIUM ?? '/usr/lib/chromium/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Why Chromium cannot be launched here, with the fix; undefined when it can. */
export function chromiumProblem(path: string = CHROMIUM_PATH): string | undefined {
  if (existsSync(path)) return undefined;
  return `Chromium is not installed at ${path}: install Debian's (as root: apt-get update && apt-get install -y chromium fonts-liberation; .ci/run does this), or point AICC_CHROMIUM at a Chromium binary`;
}

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh Chromium with its own temporary profile; throws the fix when Chromium is missing. */
export async function launchChromium(options: { timeoutMs?: number; executablePath?: string } = {}): Promise<Chromium> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH;
  const problem = chromiumProblem(executablePath);
  if (problem !== undefined) throw new Error(problem);
  const profile = mkdtempSync(join(tmpdir(), 'aicc-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: options.timeoutMs ?? 30_000,
      viewport: { width: 960, height: 640 },
    });
    return {
      context,
      async close() {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
