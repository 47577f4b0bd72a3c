// A target that freezes its thread after a little progress: the harness must stop it as a hang.
import type { FuzzTarget } from '../../harness/context.js';

export const target: FuzzTarget = async (context) => {
  context.sent(1);
  for (let n = 2 ** 53; n <= 2 ** 53 + 1; n++); // n + 1 === n: never ends
};
