import { describe, expect, it } from 'vitest';
import { processSlot, type Slot, sharedSlot, sharedSlots } from '../../../src/node/eval/providerSlots.js';

/** Ten requests through `slot`, each holding it over a few turns of the event loop: the most held at once. */
async function mostAtOnce(slot: Slot): Promise<number> {
  let held = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      await slot.acquire();
      held++;
      most = Math.max(most, held);
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      held--;
      slot.release();
    }),
  );
  return most;
}

describe('provider slots', () => {
  it('let at most max requests of a provider through at once, shared or in one process, and every request in the end', async () => {
    const shared = sharedSlots(['openai', 'local@http://127.0.0.1:8080/v1', 'openai'], 2);
    expect(Object.keys(shared.index)).toEqual(['openai', 'local@http://127.0.0.1:8080/v1']);
    expect(await mostAtOnce(sharedSlot(shared, 'openai')!)).toBe(2);
    expect(await mostAtOnce(sharedSlot(shared, 'local@http://127.0.0.1:8080/v1')!)).toBe(2);
    expect(new Int32Array(shared.buffer)[0]).toBe(0);
    expect(sharedSlot(shared, 'anthropic')).toBeUndefined();
    expect(await mostAtOnce(processSlot('test-provider', 3))).toBe(3);
    expect(await mostAtOnce(processSlot('test-provider-one', 1))).toBe(1);
  });
});
