// The types of scripts/entries.mjs (the table of the package's entries), for the TypeScript that reads it.

export interface Entry {
  subpath: string;
  out: string;
  source: string;
  platform: 'browser' | 'node';
  peers?: string[];
  iife?: string;
  validators?: { tools: string; out: string; label: string };
  oldest?: { project: string; include: string[]; exclude?: string[]; env?: Record<string, string>; alias?: { find: string; replacement: string } };
}

export declare const ENTRIES: Entry[];
export declare const PROGRAMS: Array<{ out: string; source: string }>;
export declare function packageExports(entries?: Entry[]): Record<string, unknown>;
export declare function typesVersions(entries?: Entry[]): { '*': Record<string, string[]> };
