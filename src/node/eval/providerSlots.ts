// How many model requests an eval has in flight to one provider at once, across all its episodes:
// one counter per provider in a SharedArrayBuffer that every worker thread of the eval shares (a
// request waits with Atomics.waitAsync for a free slot, and wakes the next waiter when it ends), or,
// where episodes run in processes of their own (queue workers), a counter per process.

/** The slots of an eval's providers, shared with its worker threads (a job carries it; postMessage shares, not copies, the buffer). */
export interface SharedSlots {
  buffer: SharedArrayBuffer;
  /** Each provider's counter in the buffer. */
  index: Record<string, number>;
  /** Requests in flight per provider at most. */
  max: number;
}

/** A provider's slot: taken before a request, given back after it. */
export interface Slot {
  acquire(): Promise<void>;
  release(): void;
}

/** Fresh slots for these providers, `max` requests in flight each. */
export function sharedSlots(providers: readonly string[], max: number): SharedSlots {
  const unique = [...new Set(providers)];
  return {
    buffer: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * Math.max(1, unique.length)),
    index: Object.fromEntries(unique.map((provider, at) => [provider, at])),
    max,
  };
}

type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<string> | string };

/** The slot of `provider` among shared slots. */
export function sharedSlot(slots: SharedSlots, provider: string): Slot | undefined {
  const at = slots.index[provider];
  if (at === undefined) return undefined;
  const counts = new Int32Array(slots.buffer);
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  return {
    async acquire() {
      for (;;) {
        const taken = Atomics.load(counts, at);
        if (taken < slots.max) {
          if (Atomics.compareExchange(counts, at, taken, taken + 1) === taken) return;
          continue;
        }
        // Sleeps until the count moves from what it was (a release notifies), then tries again.
        const wait = waitAsync(counts, at, taken);
        if (wait.async) await wait.value;
      }
    },
    release() {
      Atomics.sub(counts, at, 1);
      Atomics.notify(counts, at, 1);
    },
  };
}

const local = new Map<string, { taken: number; waiting: Array<() => void> }>();

/** The slot of `provider` in this process, `max` requests in flight at most (the same counter for every episode here). */
export function processSlot(provider: string, max: number): Slot {
  let state = local.get(provider);
  if (state === undefined) local.set(provider, (state = { taken: 0, waiting: [] }));
  const own = state;
  return {
    async acquire() {
      while (own.taken >= max) await new Promise<void>((resolve) => own.waiting.push(resolve));
      own.taken++;
    },
    release() {
      own.taken--;
      own.waiting.shift()?.();
    },
  };
}
