// The name of a sweep's queue, shared by the coordinator and its workers: they meet on it, so both
// take the same default and check a given name the same way.

import { CapsuleError } from '../../base/errors.js';

/**
 * The queue a sweep uses unless told otherwise, and the one `aicc worker` serves by default, so
 * `aicc sweep … --queue URL` and `aicc worker --queue URL` meet without naming it. Sweeps that
 * share it share its workers; the job ids (world, params, seed) keep their episodes apart.
 */
export const DEFAULT_QUEUE_NAME = 'aicc-sweep';

/** BullMQ's rule (no ':') and ours (a short plain name, safe in a Redis key and on a command line). */
export function checkQueueName(name: string, place: string): string {
  if (typeof name !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(name)) {
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: a queue name is 1 to 100 letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);
  }
  return name;
}
