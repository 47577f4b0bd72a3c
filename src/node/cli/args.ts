// The command line's one argument reader: Node's util.parseArgs, with what every aicc command needs
// around it — its complaints in the commands' own words (`unknown option "--x"`, `--out expects a
// file name`), whole numbers read against their bounds, and options whose value may be left out
// (`--play [NAME]`), which parseArgs itself does not have.

import { parseArgs } from 'node:util';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** A string option's value when it is given bare (`--play` alone means `--play cleo`). */
  bare?: string;
  /** What the value is, for the complaint when it is missing: "a file name" (default "a value"). */
  expects?: string;
}

export interface ArgsSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  options: O;
  /** Whether words that are not options are taken (default false). */
  positionals?: boolean;
}

/** Each option's value as its spec says: a boolean, a string, or the strings of a repeated one. */
export type ValuesOf<O extends Record<string, OptionSpec>> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? string[] : string;
};

export interface Args<O extends Record<string, OptionSpec>> {
  values: ValuesOf<O>;
  positionals: string[];
}

/** The arguments read by `spec`, or the one-line complaint about them. */
export function readArgs<const O extends Record<string, OptionSpec>>(argv: readonly string[], spec: ArgsSpec<O>): Args<O> | string {
  const args = withBareValues(argv, spec.options);
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, option]) => [
      name,
      { type: option.type, ...(option.short !== undefined && { short: option.short }), ...(option.multiple === true && { multiple: true }) },
    ]),
  );
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: spec.positionals === true, strict: true });
    return { values: values as ValuesOf<O>, positionals };
  } catch (error) {
    return complaint(error, args, spec.options);
  }
}

/** `text` as a whole number from `min` to `max`, or the complaint naming `flag`. */
export function wholeNumber(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number | string {
  const n = Number(text);
  if (/^\s*\d+\s*$/.test(text) && Number.isSafeInteger(n) && n >= min && n <= max) return n;
  const range = max === Number.MAX_SAFE_INTEGER ? (min === 0 ? '' : ` above ${min - 1}`) : ` up to ${max}`;
  return `${flag} expects a whole number${range}, got ${JSON.stringify(text)}`;
}

/** `--play` alone (at the end, or before another option) becomes `--play=<bare>`. */
function withBareValues(argv: readonly string[], options: Record<string, OptionSpec>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const bare = arg.startsWith('--') ? options[arg.slice(2)]?.bare : undefined;
    const next = argv[i + 1];
    out.push(bare !== undefined && (next === undefined || next.startsWith('-')) ? `${arg}=${bare}` : arg);
  }
  return out;
}

/** parseArgs' errors, said the way the commands say them. */
function complaint(error: unknown, args: readonly string[], options: Record<string, OptionSpec>): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  // parseArgs names an option as '--out', or '-o, --out <value>' when it has a short name.
  const named = /'(?:-\w, )?(--[\w-]+|-\w)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option "${named ?? message}"`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const word = /'([^']*)'/.exec(message)?.[1];
    return `unexpected "${word ?? args.find((arg) => !arg.startsWith('-')) ?? ''}"; every option is --NAME VALUE`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named !== undefined) {
    const option = options[named.replace(/^-+/, '')] ?? Object.values(options).find((each) => `-${each.short}` === named);
    return option?.type === 'boolean' ? `${named} takes no value` : `${named} expects ${option?.expects ?? 'a value'}`;
  }
  return message;
}
