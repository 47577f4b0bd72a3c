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

  it('reads a value that starts with a dash the same in both forms: --seeds -5..3 is --seeds=-5..3 (#25.10)', () => {
    const numbers = {
      options: { seeds: { type: 'string' }, seed: { type: 'string', short: 's' }, play: { type: 'string', bare: 'cleo' }, json: { type: 'boolean' } },
    } as const;
    for (const value of ['-5..3', '-3', '-1,2', '-0']) {
      expect(readArgs(['--seeds', value], numbers), value).toEqual(readArgs([`--seeds=${value}`], numbers));
      expect(readArgs(['--seeds', value], numbers), value).toEqual({ values: { seeds: value }, positionals: [] });
    }
    expect(readArgs(['-s', '-7', '--json'], numbers)).toEqual({ values: { seed: '-7', json: true }, positionals: [] });
    // An option that may go bare takes a negative number as its value, as its = form does.
    expect(readArgs(['--play', '-2'], numbers)).toEqual(readArgs(['--play=-2'], numbers));
    // Any other dashed word is an option, never a value: the complaint says how to give such a value.
    expect(readArgs(['--seeds', '--json'], numbers)).toBe('--seeds expects a value');
    expect(readArgs(['--out', '-weird'], spec)).toBe('--out expects a file name; a value that starts with "-" is written --out=-weird');
    expect(readArgs(['-o', '-weird'], spec)).toBe('-o expects a file name; a value that starts with "-" is written --out=-weird');
    expect(readArgs(['--out=-weird'], spec)).toMatchObject({ values: { out: '-weird' } });
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
