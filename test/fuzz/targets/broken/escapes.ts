// A target that lets an error escape: the harness must count it.
import type { FuzzTarget } from '../../harness/context.js';

export const target: FuzzTarget = async (context) => {
  context.sent(context.frames);
  queueMicrotask(() => {
    throw new Error('escaped from a microtask');
  });
  void Promise.reject(new Error('nobody caught me'));
};
