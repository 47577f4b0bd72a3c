// The evaluation report (src/node/eval/report.ts): one self-contained HTML file. Unit checks on the
// HTML (nothing fetched from the network, hostile data escaped, the timelines bounded), then the
// page in headless Chromium (test/e2e/browser/chromium.ts, as the other browser tests launch it;
// no Chromium is a failure with the fix, not a skip) opened from a file:// URL with every request
// that is not file: aborted: it gets ready with no error, every chart is drawn, the table's numbers
// are the summary's, a header click sorts, a refused call's code shows on hover — and a full-page
// screenshot of a real eval's report (the village's policies and a scripted stand-in model) goes to
// docs/images/eval-report.png for the docs.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_TIMELINES, chooseTimelines, renderReport, writeReport } from '../../../src/node/eval/report.js';
import { launchChromium, type Chromium } from '../../e2e/browser/chromium.js';
import type { ModelTurn } from '../../../src/agent/model/modelPort.js';
import { summarizeEval } from '../../../src/node/eval/evalSummary.js';
import { modelAgent, policyAgent } from '../../../src/research/evalAgents.js';
import { runEvalEpisode } from '../../../src/research/evalEpisode.js';
import type { EvalEpisode } from '../../../src/research/evalResult.js';
import { villageWorld } from '../../../src/worlds/village/villageWorld.js';
import { FIXTURE_AGENTS, evalFixture } from './fixtures.js';

const root = join(import.meta.dirname, '..', '..', '..');
const HOSTILE = '</script><img src=x onerror=alert(1)>';

/** The JSON the page reads, parsed back out of the HTML. */
function embedded(html: string): { timelines: Array<{ agent: string; seed: number }>; rows: unknown[]; latency: { samples: number[][]; totals: number[] } } {
  const match = /<script type="application\/json" id="data">([^<]*)<\/script>/.exec(html);
  expect(match, 'the data script block').not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('renderReport', () => {
  const fixture = evalFixture();

  it('loads nothing from the network: no script or link src, every library inlined', () => {
    const html = renderReport(fixture);
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    for (const name of ['chart.js', 'chartjs-chart-error-bars', '@sgratzl/chartjs-chart-boxplot']) expect(html).toContain(`<script data-library="${name}">`);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('escapes a hostile agent name, spec, params, character and failure reason', () => {
    const agents = [{ ...FIXTURE_AGENTS[1]!, name: HOSTILE, spec: `model:${HOSTILE}`, flakiness: 0.5 }, FIXTURE_AGENTS[0]!];
    const { summary, episodes } = evalFixture({ agents, params: [{ note: HOSTILE }], seeds: 4, recordings: true });
    for (const episode of episodes) {
      episode.timeline.characters = [HOSTILE, ...episode.timeline.characters.slice(1)];
      if (episode.failure) episode.failure.reason = HOSTILE;
    }
    const html = renderReport({ summary, episodes, title: HOSTILE });
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<img');
    expect(html).toContain('<title>&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title>');
    // Past the libraries and the data, the only script end tags are the page's own blocks.
    expect(html.match(/<\/script>/g)).toHaveLength(5);
    const data = embedded(html);
    expect(data.timelines.some((t) => t.agent === HOSTILE)).toBe(true);
  });

  it('embeds at most `timelines` timelines, spread evenly across the agents in a fixed order', () => {
    expect(embedded(renderReport(fixture)).timelines).toHaveLength(DEFAULT_REPORT_TIMELINES);
    for (const count of [0, 1, 5, 7]) {
      const timelines = embedded(renderReport({ ...fixture, timelines: count })).timelines;
      expect(timelines).toHaveLength(count);
    }
    const six = embedded(renderReport({ ...fixture, timelines: 6 })).timelines;
    expect(six.map((t) => t.agent)).toEqual(['scripted', 'scripted', 'smol', 'smol', 'frontier', 'frontier']);
    expect(embedded(renderReport({ ...fixture, timelines: 6 })).timelines).toEqual(six);
    expect(embedded(renderReport({ ...fixture, timelines: 1000 })).timelines).toHaveLength(fixture.episodes.length);
  });

  it('gives an agent with few episodes what it has and the rest to the others', () => {
    const few = evalFixture({ seeds: 10 });
    const episodes = few.episodes.filter((e) => e.agent !== 'smol' || e.seed === 1);
    const chosen = chooseTimelines(few.summary, episodes, 12);
    expect(chosen).toHaveLength(12);
    const counts = Object.fromEntries(['scripted', 'smol', 'frontier'].map((a) => [a, chosen.filter((e) => e.agent === a).length]));
    expect(counts).toEqual({ scripted: 5, smol: 2, frontier: 5 });
  });

  it('caps the latency samples per row, taken evenly, and keeps the totals', () => {
    const { summary, episodes } = evalFixture({ agents: [FIXTURE_AGENTS[2]!], params: [{ dayTicks: 190 }], seeds: 3 });
    const all = episodes.flatMap((e) => e.decisionMs);
    const many = episodes.map((e) => ({ ...e, decisionMs: Array.from({ length: 4000 }, (_, i) => i) }));
    const data = embedded(renderReport({ summary, episodes: many }));
    expect(data.latency.totals).toEqual([12_000]);
    expect(data.latency.samples[0]).toHaveLength(5000);
    expect(embedded(renderReport({ summary, episodes })).latency.samples[0]).toEqual(all.map((ms) => Math.round(ms * 10) / 10));
  });

  it('writes the file, making its folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aicc-report-'));
    try {
      const path = join(dir, 'a', 'b', 'report.html');
      writeReport(path, { ...fixture, timelines: 2 });
      expect(readFileSync(path, 'utf8')).toBe(renderReport({ ...fixture, timelines: 2 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the report in headless Chromium', () => {
  const fixture = evalFixture({ recordings: true });
  const TIMELINES = 6;
  let browser: Chromium;
  let page: Page;
  let dir: string;
  let aborted: string[];
  const problems: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aicc-report-'));
    const path = join(dir, 'report.html');
    writeReport(path, { ...fixture, timelines: TIMELINES, title: 'Village: three agents on two day lengths' });
    browser = await launchChromium({ timeoutMs: 120_000 });
    aborted = [];
    await browser.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      aborted.push(url);
      return route.abort();
    });
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.error !== undefined, undefined, { timeout: 60_000 });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gets ready with no error, no console problem and no network request', async () => {
    expect(await page.evaluate(() => document.body.dataset.error)).toBeUndefined();
    expect(await page.evaluate(() => document.body.dataset.ready)).toBe('true');
    expect(problems).toEqual([]);
    expect(aborted).toEqual([]);
  });

  it('shows the world, the agents with their specs and the episodes', async () => {
    expect(await page.textContent('#world')).toBe('village');
    expect(Number(await page.getAttribute('#episodes', 'data-value'))).toBe(fixture.summary.episodes);
    for (const agent of fixture.summary.agents) {
      expect(await page.textContent(`.agents li[data-agent="${agent.name}"]`)).toBe(`${agent.name} ${agent.spec}`);
    }
  });

  it('draws every chart and timeline: each canvas has more than one colour', async () => {
    const ids = ['chart-success', 'chart-cost', 'chart-latency', 'chart-rules', ...Array.from({ length: TIMELINES }, (_, n) => `timeline-${n}`)];
    const colours = await page.evaluate((ids) => {
      return ids.map((id) => {
        const canvas = document.getElementById(id) as HTMLCanvasElement | null;
        if (canvas === null || canvas.width === 0 || canvas.height === 0) return 0;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        const seen = new Set<number>();
        for (let i = 0; i < pixels.length && seen.size < 50; i += 4)
          seen.add(((pixels[i]! << 24) | (pixels[i + 1]! << 16) | (pixels[i + 2]! << 8) | pixels[i + 3]!) >>> 0);
        return seen.size;
      });
    }, ids);
    expect(Object.fromEntries(ids.map((id, i) => [id, colours[i]! > 1]))).toEqual(Object.fromEntries(ids.map((id) => [id, true])));
    expect(await page.locator('canvas[id^="timeline-"]').count()).toBe(TIMELINES);
  });

  it("shows the summary's numbers in the table, raw in data-value", async () => {
    const cells = await page.$$eval('#rows tbody tr', (trs) =>
      trs.map((tr) => ({
        row: Number(tr.getAttribute('data-row')),
        agent: tr.querySelector('[data-col="agent"]')!.textContent,
        success: tr.querySelector('[data-col="success"]')!.getAttribute('data-value'),
        cost: tr.querySelector('[data-col="costPerEpisode"]')!.getAttribute('data-value'),
        refusals: tr.querySelector('[data-col="refusalsPer100"]')!.getAttribute('data-value'),
        p95: tr.querySelector('[data-col="p95"]')!.getAttribute('data-value'),
        rating: tr.querySelector('[data-col="rating"]')!.getAttribute('data-value'),
      })),
    );
    const rows = fixture.summary.rows;
    expect(cells).toHaveLength(rows.length);
    for (const cell of cells) {
      const row = rows[cell.row]!;
      expect(cell.agent).toBe(row.agent);
      expect(Number(cell.success)).toBe(row.success.mean);
      expect(Number(cell.cost)).toBe(row.costPerEpisode);
      expect(Number(cell.refusals)).toBe(row.refusalsPer100);
      expect(cell.p95 === null ? null : Number(cell.p95)).toBe(row.latencyMs?.p95 ?? null);
      expect(row.rating).not.toBeNull();
      expect(Number(cell.rating)).toBe(row.rating!.value);
    }
    expect(await page.locator('#comparisons tbody tr').count()).toBe(fixture.summary.comparisons.length);
  });

  it('sorts the table by a header click, numerically, and back', async () => {
    const values = () => page.$$eval('#rows tbody td[data-col="costPerEpisode"]', (tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    await page.click('#rows th[data-col="costPerEpisode"]');
    const ascending = await values();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(new Set(ascending).size).toBeGreaterThan(2);
    await page.click('#rows th[data-col="costPerEpisode"]');
    const descending = await values();
    expect(descending).toEqual([...ascending].sort((a, b) => b - a));
    expect(await page.getAttribute('#rows th[data-col="costPerEpisode"]', 'aria-sort')).toBe('descending');
    // Numbers, not text: episodes sort 10 after 9 (all are 10 here, so check success instead).
    await page.click('#rows th[data-col="success"]');
    const success = await page.$$eval('#rows tbody td[data-col="success"]', (tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    expect(success).toEqual([...success].sort((a, b) => a - b));
    await page.click('#rows th[data-col="agent"]');
    const agents = await page.$$eval('#rows tbody td[data-col="agent"]', (tds) => tds.map((td) => td.textContent!));
    expect(agents).toEqual([...agents].sort((a, b) => a.localeCompare(b)));
  });

  it("names a refused call's code on hover and links each timeline to its recording", async () => {
    const target = await page.evaluate(() => {
      for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('canvas[id^="timeline-"]'))) {
        const marks = (canvas as unknown as { _marks: Array<{ x0: number; x1: number; y0: number; y1: number; text: string }> })._marks;
        const mark = marks.find((m) => m.text.includes('refused: '));
        if (mark === undefined) continue;
        canvas.scrollIntoView();
        const box = canvas.getBoundingClientRect();
        return { id: canvas.id, x: box.left + (mark.x0 + mark.x1) / 2, y: box.top + (mark.y0 + mark.y1) / 2, text: mark.text };
      }
      return undefined;
    });
    expect(target, 'a timeline with a refused call').toBeDefined();
    await page.mouse.move(target!.x, target!.y);
    expect(await page.getAttribute(`#${target!.id}`, 'title')).toMatch(/refused: [a-z_]+/);
    expect(await page.textContent('.tip')).toMatch(/refused: [a-z_]+/);
    const hrefs = await page.$$eval('#timelines a.recording', (as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toHaveLength(TIMELINES);
    for (const href of hrefs) expect(href).toMatch(/^recordings\/[a-z]+\/seed%20\d+\.ndjson$/);
    await page.mouse.move(0, 0);
  });
});

describe('the report of a real eval, as the docs show it', () => {
  it('draws a real comparison (the village, its own policy, the wanderer and a scripted stand-in model), and saves the screenshot for the docs', async () => {
    // A stand-in for a model, answering by the request alone with a model's usage: the docs cannot ship a model.
    const DIRECTIONS = ['north', 'south', 'east', 'west'];
    const standIn: ModelTurn = async (request) => ({
      role: 'assistant',
      content:
        request.messages.at(-1)?.role === 'toolResult'
          ? [{ type: 'text', text: 'Onwards.' }]
          : [{ type: 'toolCall', id: 'go', name: 'go', arguments: { direction: DIRECTIONS[request.messages.length % 4]! } }],
      usage: { input: 400 + 20 * request.messages.length, output: 12, cacheRead: 0, cacheWrite: 0, cost: { total: 0.00002 * request.messages.length } },
      stopReason: 'stop',
      timestamp: 0,
    });
    const agents = [
      { name: 'world', spec: 'policy:world', agent: policyAgent('world') },
      { name: 'wanderer', spec: 'policy:wanderer', agent: policyAgent('wanderer') },
      { name: 'stand-in', spec: 'model:stub/stand-in', agent: modelAgent({ turnOf: () => standIn }) },
    ];
    const params = [
      { apples: 3, dayTicks: 160 },
      { apples: 3, dayTicks: 400 },
    ];
    const episodes: EvalEpisode[] = [];
    for (const each of params)
      for (let seed = 1; seed <= 8; seed++)
        for (const { name, spec, agent } of agents)
          episodes.push(await runEvalEpisode(villageWorld, { seed, params: each, agent, agentName: name, agentSpec: spec, roles: ['cleo'] }));
    const summary = summarizeEval({ world: 'village', agents, params, episodes });
    const dir = mkdtempSync(join(tmpdir(), 'aicc-report-docs-'));
    const browser = await launchChromium({ timeoutMs: 120_000 });
    try {
      const path = join(dir, 'report.html');
      writeReport(path, { summary, episodes, timelines: 6, title: 'Village: who plays Cleo best?' });
      const requests: string[] = [];
      await browser.context.route('**/*', (route) => {
        if (route.request().url().startsWith('file:')) return route.continue();
        requests.push(route.request().url());
        return route.abort();
      });
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(pathToFileURL(path).href);
      await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.error !== undefined, undefined, { timeout: 60_000 });
      expect(await page.evaluate(() => document.body.dataset.error)).toBeUndefined();
      expect(requests).toEqual([]);
      // The success column shows the summary's rates.
      const shown = await page.$$eval('#rows tbody tr [data-col="success"]', (cells) => cells.map((cell) => Number(cell.getAttribute('data-value'))));
      expect(shown).toEqual(summary.rows.map((row) => row.success.mean));
      const out = join(root, 'docs', 'images');
      mkdirSync(out, { recursive: true });
      const png = await page.screenshot({ path: join(out, 'eval-report.png'), fullPage: true });
      expect(png.length).toBeGreaterThan(50_000);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('a hostile report in headless Chromium', () => {
  it('shows hostile text as text and runs none of it', async () => {
    const agents = [{ ...FIXTURE_AGENTS[1]!, name: HOSTILE, spec: `model:${HOSTILE}` }, FIXTURE_AGENTS[0]!];
    const { summary, episodes } = evalFixture({ agents, params: [{ note: HOSTILE }], seeds: 3 });
    for (const episode of episodes) episode.recording = 'javascript:alert(1)';
    const dir = mkdtempSync(join(tmpdir(), 'aicc-report-'));
    const browser = await launchChromium({ timeoutMs: 120_000 });
    try {
      writeReport(join(dir, 'report.html'), { summary, episodes, title: HOSTILE });
      const page = await browser.context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss()));
      await page.goto(pathToFileURL(join(dir, 'report.html')).href);
      await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.error !== undefined, undefined, { timeout: 60_000 });
      expect(await page.evaluate(() => document.body.dataset.error)).toBeUndefined();
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('a.recording').count()).toBe(0);
      expect(await page.title()).toBe(HOSTILE);
      expect(await page.textContent('#rows tbody td[data-col="agent"]')).toBe(HOSTILE);
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
