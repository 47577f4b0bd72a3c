// How much each fuzz target sends: a few seconds' worth in `npm test`, the long run's share under
// `npm run fuzz` (AICC_FUZZ=long). A fixed seed unless AICC_FUZZ_SEED says otherwise, printed with
// every report so that a failure can be replayed.

export const LONG = process.env['AICC_FUZZ'] === 'long';

/** The frames for a target: `quick` in `npm test`, `long` under `npm run fuzz`. */
export function framesFor(quick: number, long: number): number {
  return LONG ? long : quick;
}

/** The seed of a run: AICC_FUZZ_SEED, or the target's own fixed one. */
export function seedFor(fixed: number): number {
  const given = process.env['AICC_FUZZ_SEED'];
  return given === undefined || given === '' ? fixed : Number(given) | 0;
}
