import { describe, expect, it } from 'vitest';
import { DEDUPE_TTL_MS, DeliveryLedger } from '../../../src/node/gateway/deliveryLedger.js';
import { failure, success, type Response } from '../../../src/node/gateway/records.js';

function counter(response: (n: number) => Response): { deliver: () => Promise<Response>; calls: () => number } {
  let n = 0;
  return { deliver: async () => response(++n), calls: () => n };
}

describe('DeliveryLedger', () => {
  it('delivers a new id once and answers a repeat with the original response', async () => {
    const ledger = new DeliveryLedger();
    const { deliver, calls } = counter((n) => success('d1', 'prompt', { n }));
    const first = await ledger.once('d1', deliver);
    const again = await ledger.once('d1', deliver);
    expect(first).toEqual({ response: success('d1', 'prompt', { n: 1 }), repeated: false });
    expect(again).toEqual({ response: first.response, repeated: true });
    expect(calls()).toBe(1);
  });

  it('answers a repeat that arrives while the original is still in flight, without delivering', async () => {
    const ledger = new DeliveryLedger();
    let release!: () => void;
    let calls = 0;
    const deliver = (): Promise<Response> => {
      calls++;
      return new Promise((resolve) => (release = () => resolve(success('d', 'steer'))));
    };
    const first = ledger.once('d', deliver);
    const second = ledger.once('d', deliver);
    release();
    expect((await second).response).toEqual((await first).response);
    expect(calls).toBe(1);
  });

  it('forgets an id after ten minutes', async () => {
    let now = 0;
    const ledger = new DeliveryLedger({ now: () => now });
    const { deliver, calls } = counter(() => success('d', 'prompt'));
    await ledger.once('d', deliver);
    now = DEDUPE_TTL_MS - 1;
    await ledger.once('d', deliver);
    expect(calls()).toBe(1);
    now = DEDUPE_TTL_MS;
    expect((await ledger.once('d', deliver)).repeated).toBe(false);
    expect(calls()).toBe(2);
  });

  it('forgets a retryable failure so the retry can deliver, but keeps a final one', async () => {
    const ledger = new DeliveryLedger();
    const flaky = counter((n) => (n === 1 ? failure('r', 'prompt', 'internal_error', 'pi was slow', true) : success('r', 'prompt')));
    await ledger.once('r', flaky.deliver);
    expect((await ledger.once('r', flaky.deliver)).response.success).toBe(true);
    const final = counter(() => failure('h', 'prompt', 'hop_limit', 'too deep'));
    await ledger.once('h', final.deliver);
    expect((await ledger.once('h', final.deliver)).repeated).toBe(true);
    expect(final.calls()).toBe(1);
  });

  it('answers retryably when the deliverer throws', async () => {
    const ledger = new DeliveryLedger();
    const { response } = await ledger.once('x', () => Promise.reject(new Error('boom')));
    expect(response).toEqual(failure('x', 'deliver', 'internal_error', 'boom', true));
  });

  it('keeps at most maxEntries ids, dropping the oldest', async () => {
    const ledger = new DeliveryLedger({ maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) await ledger.once(id, async () => success(id, 'prompt'));
    expect(ledger.size).toBe(2);
    expect((await ledger.once('a', async () => success('a', 'prompt'))).repeated).toBe(false);
  });
});
