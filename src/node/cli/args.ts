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
  const args = joinedValues(argv, spec.options);
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

/**
 * A negative number: the only word starting with a dash that is never an option (no option's name
 * starts with a digit), so after a string option it is that option's value (`--seeds -5..3`).
 */
const NEGATIVE_NUMBER = /^-[\d.]/;

/**
 * argv with the value of each string option joined to it wherever parseArgs would read it another
 * way than its `=` form: a negative number after the option becomes `--name=-5..3`, and an option
 * that may go bare, left bare (at the end, or before another option), becomes `--play=<bare>`.
 */
function joinedValues(argv: readonly string[], options: Record<string, OptionSpec>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i)); // everything after `--` is a word, as parseArgs reads it
      break;
    }
    const name = optionName(arg, options);
    const option = name === undefined ? undefined : options[name];
    const next = argv[i + 1];
    if (option?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else if (option?.bare !== undefined && (next === undefined || next.startsWith('-'))) out.push(`--${name}=${option.bare}`);
    else out.push(arg);
  }
  return out;
}

/** The option `arg` names on its own (`--out` or `-o`, with no value joined to it), if any. */
function optionName(arg: string, options: Record<string, OptionSpec>): string | undefined {
  if (arg.startsWith('--')) return Object.hasOwn(options, arg.slice(2)) ? arg.slice(2) : undefined;
  if (/^-\w$/.test(arg)) return Object.keys(options).find((name) => options[name]!.short === arg.slice(1));
  return undefined;
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
    const name = optionName(named, options);
    const option = name === undefined ? undefined : options[name];
    if (option?.type === 'boolean') return `${named} takes no value`;
    const missing = `${named} expects ${option?.expects ?? 'a value'}`;
    // A dashed word that is no option of ours was meant as the value: say how to give it.
    const next = args[args.indexOf(named) + 1];
    const dashedValue = next?.startsWith('-') === true && next !== '--' && optionName(next.split('=', 1)[0]!, options) === undefined;
    return dashedValue ? `${missing}; a value that starts with "-" is written --${name}=${next}` : missing;
  }
  return message;
}
