import type { RandomBytes } from '../../src/protocol/ids.js';

/** Bytes from a small seeded generator (mulberry32): the same seed, the same ids. */
export function seededBytes(seed: number): RandomBytes {
  let state = seed >>> 0;
  return (target) => {
    for (let i = 0; i < target.length; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      target[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
    }
  };
}
