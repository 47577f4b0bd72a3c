// The import graph of a source entry, walked as a bundler would (value imports only), for tests
// that keep browser entries free of Node built-ins, `ws` and the DOM.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Every source file reached from `start`, and the bare (package) specifiers they import. */
export function importGraph(start: string): { files: string[]; bare: Set<string> } {
  const files: string[] = [];
  const bare = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.includes(file)) continue;
    files.push(file);
    // Only import and re-export statements: an `export interface …` is no import, even when a
    // comment further down quotes one.
    for (const match of readFileSync(file, 'utf8').matchAll(
      /^(?:import|export)\s(?!type\b|interface\b|function\b|class\b|const\b|let\b|async\b|abstract\b|enum\b|declare\b|default\b)[^'"]*?from\s+'([^']+)'/gm,
    )) {
      const spec = match[1]!;
      if (!spec.startsWith('.')) {
        bare.add(spec);
        continue;
      }
      const target = resolve(dirname(file), spec);
      // Sources are imported as .js; generated validators really are .js.
      queue.push(target.endsWith('.js') && !target.includes('/generated/') ? target.replace(/\.js$/, '.ts') : target);
    }
  }
  return { files, bare };
}

/** A Node or DOM global used as a value, outside comments. */
export const NODE_OR_DOM_GLOBAL = /\b(?:process|Buffer|require|window|document|__dirname)\b[.(]/;
