import { describe, expect, it } from 'vitest';
import type { SendKind } from '../../../src/agent/pilot/backend.js';
import { PeersBackend, type PeersClientLike, type PeersDeliveryOptions } from '../../../src/agent/pilot/peersBackend.js';
import type { PeersClient } from '../../../src/pi/peersClient.js';

// The real client fits the shape this backend declares (checked by tsc; nothing to run).
export const fits = (client: PeersClient): PeersClientLike => client;

/** A pi-peers agent in memory: counts settled runs, and finishes a run when the test says. */
class FakePeers implements PeersClientLike {
  state: { idle: boolean; settled: number; aiccNativeCharacters?: unknown; aiccUsage?: unknown } = { idle: true, settled: 5 };
  readonly deliveries: Array<{ kind: SendKind; message: string; options: PeersDeliveryOptions }> = [];
  readonly waits: Array<{ since: number; signal: AbortSignal | undefined }> = [];
  /** What the next deliveries do instead of succeeding. */
  readonly outcomes: Array<Error | Record<string, unknown>> = [];
  closed = false;
  private finishRun: ((text: string | null) => void) | undefined;

  async deliver(kind: SendKind, message: string, options: PeersDeliveryOptions): Promise<unknown> {
    this.deliveries.push({ kind, message, options });
    const outcome = this.outcomes.shift();
    if (outcome instanceof Error) throw outcome;
    if (outcome !== undefined) return outcome;
    if (kind === 'prompt') this.state.idle = false;
    return { type: 'response', id: options.id, command: kind, success: true };
  }

  async getState(): Promise<{ idle: boolean; settled: number; aiccNativeCharacters?: unknown; aiccUsage?: unknown }> {
    return { ...this.state };
  }

  waitForReply(since: number, options?: { signal?: AbortSignal; onSettled?: (state: object) => void }): Promise<string | null> {
    this.waits.push({ since, signal: options?.signal });
    return new Promise((resolve) => (this.finishRun = (text) => (options?.onSettled?.({ ...this.state }), resolve(text))));
  }

  /** The agent's run ends with this text (and, like a gateway hosting pi, these usage totals). */
  finish(text: string | null, aiccUsage?: unknown): void {
    this.state = { ...this.state, idle: true, settled: this.state.settled + 1, ...(aiccUsage !== undefined && { aiccUsage }) };
    this.finishRun?.(text);
  }

  close(): void {
    this.closed = true;
  }
}

function retryable(message: string): Error {
  return Object.assign(new Error(message), { code: 'connection_lost', retryable: true });
}

describe('the pi-peers backend', () => {
  it("tells observers what a reply cost from the gateway's usage totals: after the reply less before the send", async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    const signals: unknown[] = [];
    const off = backend.observe((signal) => void signals.push(signal));
    peers.state.aiccUsage = { inputTokens: 100, outputTokens: 20, costUsd: 0.5 };
    await backend.send('prompt', 'news');
    const reply = backend.reply();
    await Promise.resolve();
    peers.finish('done', { inputTokens: 160, outputTokens: 27, costUsd: 0.75 });
    expect(await reply).toBe('done');
    expect(signals).toEqual([{ type: 'usage', inputTokens: 60, outputTokens: 7, costUsd: 0.25 }]);
    // Totals that went down (another pi) or none at all: nothing is said.
    for (const after of [{ inputTokens: 1, outputTokens: 1, costUsd: 0 }, undefined]) {
      signals.length = 0;
      if (after === undefined) delete peers.state.aiccUsage;
      await backend.send('prompt', 'news');
      const next = backend.reply();
      await Promise.resolve();
      peers.finish('done', after);
      await next;
      expect(signals).toEqual([]);
    }
    off();
  });

  it("says the model has a character's tools natively when the agent's state names the character (the gateway's extension)", async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    expect(await backend.callsToolsNatively('cleo')).toBe(false); // a plain pi-peers agent
    peers.state.aiccNativeCharacters = ['cleo'];
    expect(await backend.callsToolsNatively('cleo')).toBe(true);
    expect(await backend.callsToolsNatively('bram')).toBe(false);
    peers.state.aiccNativeCharacters = 'cleo'; // not a list: not believed
    expect(await backend.callsToolsNatively('cleo')).toBe(false);
  });

  it('reads settled, delivers a prompt with an id, one hop and awaitsReply, and waits for settled to grow', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers, { idPrefix: 'bram' });
    expect(backend.busy).toBe(false);
    await backend.send('prompt', 'You are Bram.');
    expect(peers.deliveries).toEqual([{ kind: 'prompt', message: 'You are Bram.', options: { id: 'bram-1', hops: 1, awaitsReply: true } }]);
    expect(backend.busy).toBe(true);
    const reply = backend.reply();
    await Promise.resolve();
    peers.finish('```aicc\n```');
    expect(await reply).toBe('```aicc\n```');
    expect(peers.waits[0]?.since).toBe(5);
    expect(backend.busy).toBe(false);
  });

  it('delivers news into a running turn as asked, waiting on the same run', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers, { idPrefix: 'p' });
    await backend.send('prompt', 'digest');
    await backend.send('steer', 'urgent');
    await backend.send('follow_up', 'more');
    expect(peers.deliveries.map((d) => [d.kind, d.options.id])).toEqual([
      ['prompt', 'p-1'],
      ['steer', 'p-2'],
      ['follow_up', 'p-3'],
    ]);
    const reply = backend.reply();
    await Promise.resolve();
    peers.finish('done');
    expect(await reply).toBe('done');
    expect(peers.waits.map((w) => w.since)).toEqual([5]);
  });

  it('starts a run with a steer or follow-up sent to an idle agent (which would only queue it), and never prompts a busy one', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    await backend.send('steer', 'hey');
    expect(peers.deliveries.at(-1)?.kind).toBe('prompt');
    const other = new FakePeers();
    other.state.idle = false; // someone else's run is going
    await new PeersBackend(other).send('prompt', 'digest');
    expect(other.deliveries.at(-1)?.kind).toBe('follow_up');
  });

  it('retries a retryable failure with the same id, and rejects a refusal with its reason', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers, { idPrefix: 'p', attempts: 3 });
    peers.outcomes.push(retryable('link dropped'));
    await backend.send('prompt', 'digest');
    expect(peers.deliveries.map((d) => d.options.id)).toEqual(['p-1', 'p-1']);
    peers.outcomes.push({
      type: 'response',
      id: 'p-2',
      command: 'steer',
      success: false,
      error: 'steering is off',
      errorCode: 'steer_not_allowed',
      retryable: false,
    });
    await expect(backend.send('steer', 'urgent')).rejects.toThrow('PeersBackend.send: the peer refused the steer: steering is off (steer_not_allowed)');
    peers.outcomes.push(retryable('a'), retryable('b'), retryable('c'));
    await expect(backend.send('follow_up', 'x')).rejects.toThrow('PeersBackend.send: the peer refused the follow_up: c (connection_lost)');
  });

  it('abort ends the wait for the reply (passing the signal on), and stops the run when the client can', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    await backend.send('prompt', 'digest');
    const caller = new AbortController();
    const reply = backend.reply(caller.signal);
    await Promise.resolve();
    await backend.abort();
    expect(await reply).toBeNull();
    expect(peers.waits[0]?.signal?.aborted).toBe(true);
    // pi-peers 1.0 has no abort request: the run goes on, and the next reply still waits for it.
    expect(backend.busy).toBe(true);
    const stoppable = Object.assign(new FakePeers(), { aborted: 0 });
    const withAbort = new PeersBackend(Object.assign(stoppable, { abort: async () => void stoppable.aborted++ }));
    await withAbort.send('prompt', 'digest');
    await withAbort.abort();
    expect(stoppable.aborted).toBe(1);
    expect(withAbort.busy).toBe(false);
  });

  it("a caller's own signal ends the wait too", async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    await backend.send('prompt', 'digest');
    const caller = new AbortController();
    const reply = backend.reply(caller.signal);
    caller.abort();
    expect(await reply).toBeNull();
  });

  it('has no reply before anything was sent, and refuses to send once closed', async () => {
    const peers = new FakePeers();
    const backend = new PeersBackend(peers);
    expect(await backend.reply()).toBeNull();
    backend.close();
    expect(peers.closed).toBe(true);
    await expect(backend.send('prompt', 'x')).rejects.toThrow('PeersBackend.send: the backend is closed');
  });
});
