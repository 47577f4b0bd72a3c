// The browser tests' view of a demo page in Chromium: every error it logs (a Content-Security-Policy
// violation among them), the capsule's state it exposes as `window.aiccDemo` (the contract all demo
// pages keep), the inspector's rows, where things sit on the page, and screenshots. A page can be
// opened with a policy of the test's own added to its document's response. Every wait is bounded and
// says, when it runs out, what it last saw.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { decodePng, type Pixels } from './png.js';

export const SCREENSHOT_DIR = join(import.meta.dirname, '.screenshots');

export interface DemoState {
  ready: boolean;
  agent: string;
  characters: Array<{ id: string; x: number; y: number }>;
  calls: number;
  errors: string[];
}

/** A box on the page, in CSS pixels of the viewport. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OpenOptions {
  /** Bound on the page's load, ms. Default 20 s. */
  timeoutMs?: number;
  /** A Content-Security-Policy header added to the document's response (the demo server's own, if any, stays). */
  csp?: string;
}

export class DemoPage {
  /** Console errors, uncaught page errors and policy violations, in order. */
  private readonly logged: string[] = [];

  private constructor(readonly page: Page) {
    page.on('console', (message) => {
      if (message.type() === 'error') this.logged.push(`console.error: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.logged.push(`page error: ${error.message}`));
    // The console names no URL for a failed load; this line does.
    page.on('response', (response) => {
      if (response.status() >= 400) this.logged.push(`HTTP ${response.status()}: ${response.url()}`);
    });
  }

  /**
   * Opens `url` in a new tab, listening for errors from the first byte; a number is the load's
   * bound (ms). A violation of the page's Content-Security-Policy is logged as a console error.
   */
  static async open(context: BrowserContext, url: string, options: number | OpenOptions = {}): Promise<DemoPage> {
    const { timeoutMs = 20_000, csp } = typeof options === 'number' ? { timeoutMs: options } : options;
    const page = await context.newPage();
    const demo = new DemoPage(page);
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline code'} (${event.sourceFile}:${event.lineNumber})`),
      );
    });
    if (csp !== undefined) {
      await page.route(
        (target) => target.href === new URL(url).href,
        async (route) => {
          if (route.request().resourceType() !== 'document') return route.continue();
          const response = await route.fetch();
          await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': csp } });
        },
      );
    }
    demo.documentResponse = await page.goto(url, { timeout: timeoutMs, waitUntil: 'load' });
    return demo;
  }

  /** The response to the document's request, as the page got it. */
  private documentResponse: Response | null = null;

  /** The headers of the document's response (names in lower case). */
  documentHeaders(): Record<string, string> {
    return this.documentResponse?.headers() ?? {};
  }

  /** Where `selector`'s first element sits, or undefined when there is none or it is not rendered. */
  async box(selector: string): Promise<Box | undefined> {
    return this.page.evaluate((s) => {
      const element = document.querySelector(s);
      if (element === null) return undefined;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) return undefined;
      return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
    }, selector);
  }

  /** What the page logged as errors and what it caught itself (aiccDemo.errors). */
  async problems(): Promise<string[]> {
    const caught = await this.page.evaluate(() => (window as unknown as { aiccDemo?: { errors?: unknown } }).aiccDemo?.errors).catch(() => undefined);
    return [...this.logged, ...(Array.isArray(caught) ? caught.map((error) => `aiccDemo.errors: ${String(error)}`) : [])];
  }

  /** Reads the capsule's state from the page; throws if the page has no aiccDemo. */
  async state(): Promise<DemoState> {
    return this.page.evaluate(() => {
      const demo = (window as unknown as { aiccDemo?: Record<string, unknown> }).aiccDemo;
      if (demo === undefined) throw new Error('the page set no window.aiccDemo');
      return {
        ready: demo.ready === true,
        agent: String(demo.agent),
        characters: (demo.characters as () => DemoState['characters'])().map(({ id, x, y }) => ({ id, x, y })),
        calls: (demo.calls as () => number)(),
        errors: [...(demo.errors as string[])],
      };
    });
  }

  /** Waits until `aiccDemo.ready`; on timeout, the error names what the page logged. */
  async waitReady(timeoutMs = 20_000): Promise<DemoState> {
    try {
      await this.page.waitForFunction(() => (window as unknown as { aiccDemo?: { ready?: unknown } }).aiccDemo?.ready === true, null, {
        timeout: timeoutMs,
        polling: 50,
      });
    } catch (error) {
      throw new Error(
        `${this.page.url()}: aiccDemo.ready not true within ${timeoutMs} ms (${(error as Error).message.split('\n')[0]}); the page logged: ${JSON.stringify(await this.problems())}`,
      );
    }
    return this.state();
  }

  /**
   * Waits until at least `minMoved` characters have moved from where they were at the start and
   * the count of completed tool calls has grown; resolves with both readings.
   */
  async waitForMovement(options: { minMoved?: number; timeoutMs?: number } = {}): Promise<{ before: DemoState; after: DemoState; moved: string[] }> {
    const minMoved = options.minMoved ?? 1;
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    const before = await this.state();
    for (;;) {
      const after = await this.state();
      const moved = after.characters
        .filter((now) => {
          const then = before.characters.find((c) => c.id === now.id);
          return then !== undefined && (Math.abs(now.x - then.x) > 0.5 || Math.abs(now.y - then.y) > 0.5);
        })
        .map((c) => c.id);
      if (moved.length >= minMoved && after.calls > before.calls) return { before, after, moved };
      if (Date.now() > deadline) {
        throw new Error(
          `${this.page.url()}: within ${options.timeoutMs ?? 15_000} ms ${moved.length} of ${after.characters.length} characters moved (need ${minMoved}) and calls went ${before.calls} → ${after.calls}; before ${JSON.stringify(before.characters)}, after ${JSON.stringify(after.characters)}`,
        );
      }
      await this.page.waitForTimeout(100);
    }
  }

  /** The inspector's tool-call rows: how many, and how many say data-ok="true". */
  async inspectorCalls(): Promise<{ rows: number; ok: number }> {
    return this.page.evaluate(() => {
      const rows = Array.from(document.querySelectorAll('[data-aicc-inspector] [data-aicc-call]'));
      return { rows: rows.length, ok: rows.filter((row) => row.getAttribute('data-ok') === 'true').length };
    });
  }

  /** Waits until the inspector lists at least `min` calls. */
  async waitForInspectorCalls(min: number, timeoutMs = 10_000): Promise<{ rows: number; ok: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = await this.inspectorCalls();
      if (seen.rows >= min) return seen;
      if (Date.now() > deadline) {
        const inspectors = await this.page.locator('[data-aicc-inspector]').count();
        throw new Error(
          `${this.page.url()}: the inspector lists ${seen.rows} calls after ${timeoutMs} ms (need ${min}); [data-aicc-inspector] elements: ${inspectors}`,
        );
      }
      await this.page.waitForTimeout(100);
    }
  }

  /**
   * Saves `<name>.png` (the whole page) and `<name>.canvas.png` (the game's canvas alone, every
   * other element hidden for the shot — the inspector's panel or a help bar over a blank canvas
   * must not pass for a drawn scene) to .screenshots/, and returns the canvas's pixels.
   */
  async screenshot(name: string): Promise<Pixels> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(join(SCREENSHOT_DIR, `${name}.png`), await this.page.screenshot({ timeout: 10_000 }));
    // A hidden parent's visible child still shows: only canvases stay on screen.
    const style = await this.page.addStyleTag({ content: '* { visibility: hidden !important; } canvas { visibility: visible !important; }' });
    try {
      const png = await this.page.locator('canvas').first().screenshot({ timeout: 10_000 });
      writeFileSync(join(SCREENSHOT_DIR, `${name}.canvas.png`), png);
      return decodePng(png);
    } finally {
      await style.evaluate((element) => (element as Element).remove());
    }
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
