// Where the time goes: reads a V8 .cpuprofile (from `node --cpu-prof`) and prints the functions
// with the most self time, and the most total time (self plus callees), as a share of the run.
// `bench/profile.ts` profiles the swarm and prints this; on its own:
//
//   npx tsx bench/profileTop.ts some.cpuprofile [--top 25]

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  selfMs: number;
  totalMs: number;
}

/** Names the place of a frame (0-based line and column); the default: the file, relative to the cwd, and line. */
export type PlaceOf = (url: string, lineNumber: number, columnNumber: number) => string;

/** Self and total time per function (name and place), longest self time first. */
export function summarise(profile: Profile, placeOf: PlaceOf = filePlace): { rows: ProfileRow[]; totalMs: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    totalUs += delta;
  });
  const rows = new Map<string, ProfileRow>();
  const rowOf = (node: ProfileNode): ProfileRow => {
    const name = label(node, placeOf);
    let row = rows.get(name);
    if (row === undefined) rows.set(name, (row = { name, selfMs: 0, totalMs: 0 }));
    return row;
  };
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    rowOf(node).selfMs += us / 1000;
    // Total time: every distinct function on the stack gets the sample once (recursion counts once).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const row = rowOf(byId.get(at)!);
      if (seen.has(row.name)) continue;
      seen.add(row.name);
      row.totalMs += us / 1000;
    }
  }
  return { rows: [...rows.values()].sort((a, b) => b.selfMs - a.selfMs), totalMs: totalUs / 1000 };
}

function label(node: ProfileNode, placeOf: PlaceOf): string {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  return url === '' ? name : `${name}  ${placeOf(url, lineNumber, columnNumber)}`;
}

function filePlace(url: string, lineNumber: number): string {
  const path = url.startsWith('file://') ? relative(process.cwd(), fileURLToPath(url)) : url;
  return `${path}:${lineNumber + 1}`;
}

/** The top rows by self time, then by total time, as printable lines. */
export function report(profile: Profile, top: number, placeOf?: PlaceOf): string[] {
  const { rows, totalMs } = summarise(profile, placeOf);
  const share = (ms: number): string => `${((100 * ms) / totalMs).toFixed(1).padStart(5)}%`;
  return [
    `${(totalMs / 1000).toFixed(1)} s sampled`,
    '',
    'by self time:',
    ...rows.slice(0, top).map((row) => `${share(row.selfMs)}  ${row.name}`),
    '',
    'by total time (self + callees):',
    ...[...rows]
      .sort((a, b) => b.totalMs - a.totalMs)
      .slice(0, top)
      .map((row) => `${share(row.totalMs)}  ${row.name}`),
  ];
}

function main(argv: string[]): void {
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 25;
  const files = argv.filter((arg, i) => arg !== '--top' && i !== topAt + 1);
  if (files.length === 0) {
    process.stderr.write('usage: tsx bench/profileTop.ts <file.cpuprofile>… [--top N]\n');
    process.exitCode = 2;
    return;
  }
  for (const file of files) {
    process.stdout.write(`${file}: ${report(JSON.parse(readFileSync(file, 'utf8')) as Profile, top).join('\n')}\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
