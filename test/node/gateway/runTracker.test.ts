import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PiEvent } from '../../../src/node/gateway/piProcess.js';
import { RunTracker } from '../../../src/node/gateway/runTracker.js';

const ev = (type: string, extra: Record<string, unknown> = {}): PiEvent => ({ type, ...extra });
const assistant = (stopReason: string): Record<string, unknown> => ({ messages: [{ role: 'user' }, { role: 'assistant', stopReason }] });

function feed(tracker: RunTracker, events: PiEvent[]): void {
  for (const event of events) tracker.event(event);
}

describe('RunTracker, pi 0.73 events', () => {
  it('counts a run on agent_end and is idle between runs', () => {
    const tracker = new RunTracker();
    expect([tracker.idle, tracker.settled]).toEqual([true, 0]);
    tracker.promptSent(true);
    expect(tracker.idle).toBe(false); // the prompt is out: pi is busy before agent_start arrives
    tracker.promptAnswered({ type: 'response', command: 'prompt', success: true }, true);
    expect(tracker.idle).toBe(false);
    feed(tracker, [ev('agent_start'), ev('turn_start'), ev('message_update', { assistantMessageEvent: { partial: {} } }), ev('turn_end')]);
    expect([tracker.idle, tracker.settled]).toEqual([false, 0]);
    tracker.event(ev('agent_end', assistant('stop')));
    expect([tracker.idle, tracker.settled, tracker.dialect]).toEqual([true, 1, 'unknown']);
  });

  it('counts the start when the prompt response comes after agent_start', () => {
    const tracker = new RunTracker();
    tracker.promptSent(true);
    tracker.event(ev('agent_start'));
    tracker.promptAnswered({ type: 'response', command: 'prompt', success: true }, true);
    tracker.event(ev('agent_end', assistant('stop')));
    expect([tracker.idle, tracker.settled]).toEqual([true, 1]);
  });

  it('stops waiting for a start when pi refuses the prompt', () => {
    const tracker = new RunTracker();
    tracker.promptSent(true);
    tracker.promptAnswered({ type: 'response', command: 'prompt', success: false, error: 'No API key' }, true);
    expect([tracker.idle, tracker.settled]).toEqual([true, 0]);
  });

  describe('a run that ends in a model error', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('is held briefly, and not counted when pi retries it', () => {
      const tracker = new RunTracker({ retryGraceMs: 250 });
      feed(tracker, [ev('agent_start'), ev('agent_end', assistant('error'))]);
      expect([tracker.idle, tracker.settled]).toEqual([false, 0]);
      feed(tracker, [ev('auto_retry_start', { attempt: 1 })]);
      vi.advanceTimersByTime(1000);
      expect([tracker.idle, tracker.settled]).toEqual([false, 0]);
      feed(tracker, [ev('agent_start'), ev('agent_end', assistant('stop'))]);
      expect([tracker.idle, tracker.settled]).toEqual([true, 1]);
    });

    it('is counted after the grace when nothing retries it', () => {
      const tracker = new RunTracker({ retryGraceMs: 250 });
      feed(tracker, [ev('agent_start'), ev('agent_end', assistant('error'))]);
      vi.advanceTimersByTime(249);
      expect(tracker.settled).toBe(0);
      vi.advanceTimersByTime(1);
      expect([tracker.idle, tracker.settled]).toEqual([true, 1]);
    });

    it('is counted at once when pi gives up retrying', () => {
      const tracker = new RunTracker();
      feed(tracker, [ev('agent_start'), ev('agent_end', assistant('error')), ev('auto_retry_end', { success: false })]);
      expect([tracker.idle, tracker.settled]).toEqual([true, 1]);
    });
  });
});

describe('RunTracker, pi 1.x events', () => {
  it('counts a run once when agent_settled follows agent_end in the first run', () => {
    const tracker = new RunTracker();
    const run = [
      ev('agent_start'),
      ev('message_start', { message: { role: 'system' } }),
      ev('message_end', { message: { role: 'system' } }),
      ev('agent_end', assistant('stop')),
      ev('agent_settled', { aborted: false }),
    ];
    feed(tracker, run);
    expect([tracker.idle, tracker.settled, tracker.dialect]).toEqual([true, 1, 'agent_settled']);
    // From now on agent_end is not the end: only agent_settled is.
    feed(tracker, [ev('agent_start'), ev('agent_end', assistant('stop'))]);
    expect([tracker.idle, tracker.settled]).toEqual([false, 1]);
    tracker.event(ev('agent_settled', { aborted: false }));
    expect([tracker.idle, tracker.settled]).toEqual([true, 2]);
  });

  it('learns the dialect from data.disposition and then waits for agent_settled even in the first run', () => {
    const tracker = new RunTracker();
    tracker.promptSent(true);
    tracker.event(ev('agent_start'));
    tracker.promptAnswered({ type: 'response', command: 'prompt', success: true, data: { disposition: 'started' } }, true);
    expect(tracker.dialect).toBe('agent_settled');
    tracker.event(ev('agent_end', assistant('error')));
    expect([tracker.idle, tracker.settled]).toEqual([false, 0]);
    tracker.event(ev('agent_settled', { aborted: false }));
    expect([tracker.idle, tracker.settled]).toEqual([true, 1]);
  });

  it('does not wait for a start after a prompt pi queued', () => {
    const tracker = new RunTracker();
    tracker.promptSent(true);
    tracker.promptAnswered({ type: 'response', command: 'prompt', success: true, data: { disposition: 'queued' } }, true);
    expect(tracker.idle).toBe(true);
  });
});

describe('RunTracker lifecycle', () => {
  it('is never idle once pi is gone, and tells listeners about changes', () => {
    const tracker = new RunTracker();
    const seen: number[] = [];
    tracker.onChange(() => seen.push(tracker.settled));
    feed(tracker, [ev('agent_start'), ev('agent_end', assistant('stop'))]);
    tracker.stop();
    expect(tracker.idle).toBe(false);
    expect(seen).toEqual([0, 1, 1]);
  });
});
