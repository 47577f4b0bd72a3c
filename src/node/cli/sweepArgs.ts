// What `aicc sweep` and `aicc eval` read alike: whole-number options, the params grid, and Ctrl-C.

import type { ParamValue } from '../../research/world.js';

/** Each named option read as a whole number >= 1, or the complaint about the first that is not. */
export function wholeNumbers<N extends string>(values: Partial<Record<N, string>>, names: readonly N[]): Partial<Record<N, number>> | string {
  const numbers: Partial<Record<N, number>> = {};
  for (const name of names) {
    const text = values[name];
    if (text === undefined) continue;
    const value = Number(text);
    if (!(/^\s*\d+\s*$/.test(text) && Number.isSafeInteger(value) && value >= 1)) return `--${name} takes a whole number >= 1, got ${JSON.stringify(text)}`;
    numbers[name] = value;
  }
  return numbers;
}

/** `--param NAME=V1,V2` options as a grid, or the complaint about the first that does not read. */
export function paramsGrid(params: readonly string[]): Record<string, ParamValue[]> | string {
  const grid: Record<string, ParamValue[]> = {};
  for (const param of params) {
    const match = /^([^=]+)=(.*)$/.exec(param);
    if (match === null) return `--param takes NAME=V1,V2,…, got ${JSON.stringify(param)}`;
    const name = match[1]!.trim();
    if (Object.hasOwn(grid, name)) return `--param ${name} is given twice; list all its values in one (${name}=a,b)`;
    grid[name] = match[2]!.split(',').map((value) => value.trim());
  }
  return grid;
}

/** Aborts on the first Ctrl-C only: a second one finds Node's default and ends the process at once. */
export function firstCtrlC(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once('SIGINT', abort);
  return { signal: controller.signal, release: () => void process.off('SIGINT', abort) };
}
