// A target that finds everything the report has room for: an undocumented code, a secret in
// plain sight, a broken promise, and a heap that keeps growing.
import type { FuzzTarget } from '../../harness/context.js';

const kept: unknown[] = [];

export const target: FuzzTarget = async (context) => {
  context.secret('hunter2-key');
  for (let n = 0; n < context.frames; n++) {
    context.sent();
    kept.push(new Array(64 * 1024).fill(n)); // 512 KiB a frame, never freed
  }
  context.code('teapot', new Set(['invalid_input']), 'a reply');
  context.code('invalid_input', new Set(['invalid_input']), 'a reply');
  context.seen('closed: wrong key hunter2-key', 'a close reason');
  context.seen('closed: wrong key', 'another close reason');
  context.problem('a call was answered twice');
};
