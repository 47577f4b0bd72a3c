// The command line's one argument reader: util.parseArgs with the commands' own complaints, whole
// numbers against their bounds, and options whose value may be left out.

import { describe, expect, it } from 'vitest';
import { readArgs, wholeNumber } from '../../../src/node/cli/args.js';

const spec = {
  options: {
    out: { type: 'string', short: 'o', expects: 'a file name' },
    play: { type: 'string', bare: 'cleo' },
    param: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
} as const;

describe('readArgs', () => {
  it('reads strings, repeated strings, booleans and short names, typed as their specs say', () => {
    const read = readArgs(['-o', 'a.txt', '--param', 'x=1', '--param', 'y=2', '--json'], spec);
    expect(read).toEqual({ values: { out: 'a.txt', param: ['x=1', 'y=2'], json: true }, positionals: [] });
  });

  it('gives an option that may go bare its value when it is left out, at the end or before another option', () => {
    expect(readArgs(['--play'], spec)).toMatchObject({ values: { play: 'cleo' } });
    expect(readArgs(['--play', '--json'], spec)).toMatchObject({ values: { play: 'cleo', json: true } });
    expect(readArgs(['--play', 'ada'], spec)).toMatchObject({ values: { play: 'ada' } });
  });

  it("complains in the commands' words", () => {
    expect(readArgs(['--fast'], spec)).toBe('unknown option "--fast"');
    expect(readArgs(['--out'], spec)).toBe('--out expects a file name');
    expect(readArgs(['--out', '--json'], spec)).toBe('--out expects a file name');
    expect(readArgs(['--param'], spec)).toBe('--param expects a value');
    expect(readArgs(['--json=yes'], spec)).toBe('--json takes no value');
    expect(readArgs(['stray'], spec)).toBe('unexpected "stray"; every option is --NAME VALUE');
  });

  it('takes words that are not options only when told to', () => {
    expect(readArgs(['tools.json', '-o', 'v.js'], { ...spec, positionals: true })).toEqual({ values: { out: 'v.js' }, positionals: ['tools.json'] });
  });
});

describe('wholeNumber', () => {
  it('reads a whole number within its bounds, or says which bounds it missed', () => {
    expect(wholeNumber('--port', '8080', 0, 65535)).toBe(8080);
    expect(wholeNumber('--port', '70000', 0, 65535)).toBe('--port expects a whole number up to 65535, got "70000"');
    expect(wholeNumber('--ticks', '0', 1)).toBe('--ticks expects a whole number above 0, got "0"');
    expect(wholeNumber('--seed', '1.5', 0)).toBe('--seed expects a whole number, got "1.5"');
    expect(wholeNumber('--seed', '-3', 0)).toBe('--seed expects a whole number, got "-3"');
  });
});
