// The code blocks of README.md and docs/*.md, read as docs.test.ts runs them. Each fenced block says
// what it is in its info string, after the language: `run` (a program: compiled, run in Node, and
// followed by an `output` block holding what it prints), `compile` (browser code: compiled only),
// `output` (what the `run` block before it prints; a line `…` stands for any lines) or `norun`
// (shell lines, fragments, JSON messages: not a program).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MARKS = ['run', 'compile', 'output', 'norun'] as const;
export type Mark = (typeof MARKS)[number];

export interface CodeBlock {
  /** The document's path from the repository root, e.g. `docs/PHASER.md`. */
  doc: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The first word of the info string (`ts`, `sh`, `json`…). */
  lang: string;
  /** The marking, or undefined when the info string has none (docs.test.ts refuses that). */
  mark: Mark | undefined;
  /** What the fence's info string says after the language, as written. */
  words: string[];
  code: string;
  /** For a `run` block: the `output` block that follows it. */
  output?: CodeBlock;
}

/** README.md and every docs/*.md of `root`, as paths from it. */
export function documents(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/** The fenced blocks of one document (fences at the start of a line, three backquotes). */
export function codeBlocks(doc: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const close = lines.findIndex((line, j) => j > i && line === '```');
    if (close === -1) throw new Error(`${doc}:${i + 1}: a code fence is never closed`);
    const [lang = '', ...words] = open[1]!.trim().split(/\s+/).filter(Boolean);
    const marks = words.filter((word): word is Mark => (MARKS as readonly string[]).includes(word));
    blocks.push({ doc, line: i + 1, lang, mark: marks.length === 1 ? marks[0] : undefined, words, code: `${lines.slice(i + 1, close).join('\n')}\n` });
    i = close;
  }
  blocks.forEach((block, index) => {
    const next = blocks[index + 1];
    if (block.mark === 'run' && next?.mark === 'output') block.output = next;
  });
  return blocks;
}

/** The packages a block imports other than aicc-capsule and Node's own (`phaser`, `three`, `@scope/name`). */
export function importedPackages(block: CodeBlock): string[] {
  const specifiers = [...block.code.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
  const packages = specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    )
    .filter((name) => name !== 'aicc-capsule');
  return [...new Set(packages)];
}

/** The file a block is written to in the consumer project, e.g. `docs-PHASER-12.ts`. */
export function blockFile(block: CodeBlock): string {
  return `${block.doc.replace(/\.md$/, '').replace(/\//g, '-')}-${block.line}.ts`;
}

/**
 * Whether `printed` is what an output block says: line for line, where a line `…` in the block
 * stands for any number of lines (none included).
 */
export function matchesOutput(printed: string, expected: string): boolean {
  const want = expected.replace(/\n$/, '').split('\n');
  const got = printed.replace(/\n$/, '').split('\n');
  const match = (w: number, g: number): boolean => {
    if (w === want.length) return g === got.length;
    if (want[w] === '…') {
      for (let skip = g; skip <= got.length; skip++) if (match(w + 1, skip)) return true;
      return false;
    }
    return g < got.length && got[g] === want[w] && match(w + 1, g + 1);
  };
  return match(0, 0);
}

/** The first code block under the heading `heading` (e.g. `## Wire an NPC`) of `doc` in `root`: the program a reader copies first. */
export function sectionBlock(root: string, doc: string, heading: string): CodeBlock {
  const text = readFileSync(join(root, doc), 'utf8');
  const lines = text.split('\n');
  const at = lines.indexOf(heading);
  if (at === -1) throw new Error(`${doc} has no heading "${heading}"`);
  const next = lines.findIndex((line, index) => index > at && /^#{1,2} /.test(line));
  const block = codeBlocks(doc, text).find((candidate) => candidate.line > at + 1 && (next === -1 || candidate.line < next + 1));
  if (block === undefined) throw new Error(`${doc} has no code block under "${heading}"`);
  return block;
}

/** Every block of every document of `root`. */
export function allCodeBlocks(root: string): CodeBlock[] {
  return documents(root).flatMap((doc) => codeBlocks(doc, readFileSync(join(root, doc), 'utf8')));
}
