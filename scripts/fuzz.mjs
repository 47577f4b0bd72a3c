// `npm run fuzz [-- vitest args]`: the long fuzz runs — every target in test/fuzz with its long
// budget (AICC_FUZZ=long: millions of frames against the capsule, 10^5 and more against each
// client and the gateway) — then one table of what they found, written to test/fuzz/results.json.
// AICC_FUZZ_SEED=N replays a run with another seed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const reports = `${root}test/fuzz/.reports.jsonl`;
rmSync(reports, { force: true });
const status =
  spawnSync(process.execPath, [`${root}node_modules/vitest/vitest.mjs`, 'run', '--project', 'fuzz', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, AICC_FUZZ: 'long', AICC_FUZZ_REPORT: reports },
  }).status ?? 1;

const runs = existsSync(reports)
  ? readFileSync(reports, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
rmSync(reports, { force: true });
const n = (x) => x.toLocaleString('en');
const rows = runs.map((r) => [
  r.target,
  n(r.frames),
  `${n(Math.round((r.frames / Math.max(1, r.ms)) * 1000))}/s`,
  r.escapes,
  r.hangs,
  r.undocumented.length,
  r.secrets.length,
  r.problems.length,
  `${r.heapWarmMiB.toFixed(1)} → ${r.heapEndMiB.toFixed(1)}`,
  r.seed,
]);
const head = ['target', 'frames', 'rate', 'escapes', 'hangs', 'undocumented', 'secrets', 'problems', 'heap MiB', 'seed'];
const widths = head.map((h, i) => Math.max(String(h).length, ...rows.map((row) => String(row[i]).length)));
const line = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join('  ');
console.log(`\n${line(head)}\n${rows.map(line).join('\n')}`);
const capsuleFrames = runs.filter((r) => r.target.startsWith('capsule/')).reduce((sum, r) => sum + r.frames, 0);
console.log(
  `\ncapsule: ${n(capsuleFrames)} frames in all; ${runs.reduce((s, r) => s + r.escapes + r.hangs + r.undocumented.length + r.secrets.length + r.problems.length, 0)} findings across ${runs.length} runs`,
);
writeFileSync(`${root}test/fuzz/results.json`, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs }, null, 2)}\n`);
process.exit(status);
