import { describe, expect, it } from 'vitest';
import { defineWorld } from '../../src/research/world.js';
import { counterWorld } from './fixture.js';

const setup = () => {
  throw new Error('not run');
};

describe('defineWorld', () => {
  it('resolves params over the defaults, reading strings as the default’s type', () => {
    expect(counterWorld.resolveParams({ agents: '3', chance: 0.25, eager: 'true', label: 'x' })).toEqual({
      agents: 3,
      chance: 0.25,
      goal: 1000,
      label: 'x',
      eager: true,
    });
    expect(counterWorld.resolveParams()).toEqual(counterWorld.params);
  });

  it('refuses an unknown parameter, naming the ones it takes', () => {
    expect(() => counterWorld.resolveParams({ agnets: 3 })).toThrow(/world "counters" has no parameter "agnets"; it takes agents, chance, goal, label, eager/);
    // A name Object.prototype has is still unknown.
    expect(() => counterWorld.resolveParams({ constructor: 1 })).toThrow(/no parameter "constructor"/);
  });

  it('refuses a value that is not of the default’s type', () => {
    expect(() => counterWorld.resolveParams({ agents: 'many' })).toThrow(/parameter agents must be a finite number, got "many"/);
    expect(() => counterWorld.resolveParams({ agents: '' })).toThrow(/finite number/);
    expect(() => counterWorld.resolveParams({ eager: 'yes' })).toThrow(/parameter eager must be true or false/);
    expect(() => counterWorld.resolveParams({ label: 3 })).toThrow(/parameter label must be a string/);
  });

  it('checks the definition where it is written', () => {
    expect(() => defineWorld({ name: '9lives', params: {}, maxTicks: 10, setup })).toThrow(/defineWorld: name must be a letter/);
    expect(() => defineWorld({ name: 'w', params: {}, maxTicks: 0, setup })).toThrow(/maxTicks must be a whole number >= 1/);
    expect(() => defineWorld({ name: 'w', params: { rate: Number.NaN }, maxTicks: 10, setup })).toThrow(/parameter rate must default to a finite number/);
    expect(() => defineWorld({ name: 'w', params: { 'bad name': 1 }, maxTicks: 10, setup })).toThrow(/parameter name "bad name"/);
    expect(() => defineWorld({ name: 'w', params: {}, maxTicks: 10 } as never)).toThrow(/setup must be a function/);
  });

  it('freezes the world and its defaults', () => {
    expect(Object.isFrozen(counterWorld)).toBe(true);
    expect(Object.isFrozen(counterWorld.params)).toBe(true);
  });
});
