// The package's public API as a user meets it: for every entry in package.json "exports", the
// names its built types (dist/*.d.ts) export, each with its kind, and the names its built module
// exports at run time. Written as one Markdown report, so a change to the API shows as a diff to
// review (api-report.md beside this file).

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface EntryReport {
  /** The subpath, as a user imports it: `aicc-capsule`, `aicc-capsule/core`, … */
  entry: string;
  /** Every exported name with its kind (class, function, const, interface, type, enum, namespace). */
  names: Array<{ name: string; kind: string }>;
  /** Names the module exports at run time that its types do not declare as values (should be none). */
  untypedValues: string[];
  /** Value names the types declare that the module does not export at run time (should be none). */
  missingValues: string[];
}

type Conditions = { types?: string; default?: string; require?: unknown };

/** The entries of package.json "exports" that hold code: each with its ESM file and its types. */
export function entriesOf(root: string): Array<{ entry: string; module: string; types: string }> {
  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { name: string; exports: Record<string, string | Conditions> };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string' || target.types === undefined || target.default === undefined) return [];
    const entry = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    return [{ entry, module: `${root}${target.default.slice(2)}`, types: `${root}${target.types.slice(2)}` }];
  });
}

/** Reads every entry's types with one TypeScript program, and imports its module. */
export async function apiReport(root: string): Promise<EntryReport[]> {
  const entries = entriesOf(root);
  const program = ts.createProgram(
    entries.map((each) => each.types),
    {
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    },
  );
  const checker = program.getTypeChecker();
  const reports: EntryReport[] = [];
  for (const { entry, module, types } of entries) {
    const source = program.getSourceFile(types);
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined) throw new Error(`apiReport: ${types} has no module symbol; run npm run build`);
    const names = checker
      .getExportsOfModule(symbol)
      .map((exported) => {
        const kind = kindOf(exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported);
        // A class exported with `export type` is a type here: nothing of it exists at run time.
        return { name: exported.name, kind: isValueKind(kind) && typeOnly(exported) ? `${kind} (type only)` : kind };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
    const runtime = Object.keys((await import(pathToFileURL(module).href)) as object).sort();
    const values = new Set(names.filter((each) => isValueKind(each.kind)).map((each) => each.name));
    reports.push({
      entry,
      names,
      untypedValues: runtime.filter((name) => !values.has(name)),
      missingValues: [...values].filter((name) => !runtime.includes(name)),
    });
  }
  return reports;
}

/** The report as Markdown: an entry a section, its values first, then its types. */
export function formatReport(reports: EntryReport[]): string {
  const lines = [
    '# Public API report',
    '',
    'Every name each entry of the package exports, read from `dist/` (`test/api/apiReport.test.ts`).',
    'A change here is a change to the API: review it, then accept it with `npx vitest run test/api -u`.',
  ];
  for (const report of reports) {
    const values = report.names.filter((each) => isValueKind(each.kind));
    const types = report.names.filter((each) => !isValueKind(each.kind));
    lines.push('', `## ${report.entry}`, '', `${values.length} values, ${types.length} types`, '');
    for (const { name, kind } of [...values, ...types]) lines.push(`- ${kind} \`${name}\``);
  }
  return `${lines.join('\n')}\n`;
}

function isValueKind(kind: string): boolean {
  return kind === 'class' || kind === 'function' || kind === 'const' || kind === 'enum' || kind === 'namespace';
}

/** Whether an export is `export type { … }` or `export { type … }`. */
function typeOnly(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (declaration) => ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly),
  );
}

function kindOf(symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.ValueModule) return 'namespace';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}
