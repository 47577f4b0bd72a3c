// What one session's calls leave behind, as the call pipeline keeps it: the results a repeated
// call_id is answered from, each tool's use against its limits, the signals of handlers still
// running, and the counts the session's stats report. Results go straight to the session's outbox
// and direct responses to its event queue: neither the pipeline nor this holds the session itself.

import { ResultCache, type CallResult } from './resultCache.js';
import { ToolUsage } from './limits.js';
import type { QueuedEvent } from './events.js';
import type { Capabilities, ToolClass } from '../protocol/messages.js';
import type { ToolUsageSnapshot } from './sessionTypes.js';

/** Where a session's call results go: its outbox. */
export interface ResultOutlet {
  sendResult(result: CallResult): void;
}

/** Where a handler's direct responses go: the session's own event queue. */
export interface DirectOutlet {
  push(event: QueuedEvent): void;
}

export class SessionCalls {
  /** Calls answered, and of them the refused or failed ones. */
  calls = 0;
  refusals = 0;
  /** The session closed: results made later are dropped. */
  closed = false;
  /** Calls waiting for the next tick (the pipeline bounds them: CapsuleOptions.callQueueSize). */
  waiting = 0;
  private readonly results: ResultCache;
  // Made on first use: a session calls few of the world's tools.
  private usage: Map<string, ToolUsage> | undefined;
  private controllers: Set<AbortController> | undefined;

  constructor(
    readonly sessionId: string,
    readonly character: string,
    /** The session's grants now: the game may change them while the session lives (capsule.setCapabilities). */
    private readonly capabilities: () => Capabilities,
    private readonly outbox: ResultOutlet,
    private readonly queue: DirectOutlet,
    resultCacheSize: number,
  ) {
    this.results = new ResultCache(resultCacheSize);
  }

  /** undefined: a new call_id (now marked running). Otherwise the call was seen: its result, or null while it runs. */
  claim(callId: string): CallResult | null | undefined {
    return this.results.claim(callId);
  }

  /** A call's result: kept for a repeated call_id, counted, and sent. */
  finish(result: CallResult): void {
    if (this.closed) return;
    this.calls++;
    if (!result.ok) this.refusals++;
    this.results.store(result);
    this.outbox.sendResult(result);
  }

  /** A repeated call_id answered from the cache: sent, not counted again. */
  resend(result: CallResult): void {
    if (!this.closed) this.outbox.sendResult(result);
  }

  /** A result that came after its call's timeout: kept for a retry, never sent (the agent had `timeout`). */
  keepLate(result: CallResult): void {
    if (!this.closed) this.results.storeLate(result);
  }

  holds(toolClass: ToolClass, capability: string): boolean {
    const grants = this.capabilities();
    const list = toolClass === 'sensor' ? grants.sensors : toolClass === 'actuator' ? grants.actuators : grants.generators;
    return list.includes(capability);
  }

  /** The usage counters of one tool in this session (limits survive a resume with the session). */
  usageOf(tool: string): ToolUsage {
    this.usage ??= new Map();
    let usage = this.usage.get(tool);
    if (usage === undefined) this.usage.set(tool, (usage = new ToolUsage()));
    return usage;
  }

  /** Every tool this session has called: calls that reached a handler, and those in the per-minute window now. */
  toolUsage(now: number): ToolUsageSnapshot[] {
    return [...(this.usage ?? [])].map(([tool, usage]) => ({ tool, used: usage.used, inWindow: usage.inWindow(now) }));
  }

  /** An event to the calling session alone, whatever its subscriptions (a handler's direct response). */
  direct(event: QueuedEvent): void {
    if (!this.closed) this.queue.push(event);
  }

  /** An AbortController tied to the session's life. */
  controller(): AbortController {
    const controller = new AbortController();
    (this.controllers ??= new Set()).add(controller);
    return controller;
  }

  release(controller: AbortController): void {
    this.controllers?.delete(controller);
  }

  /** The session closed: every running handler's signal aborts, and nothing more is sent. */
  close(reason: string): void {
    this.closed = true;
    for (const controller of this.controllers ?? []) controller.abort(new Error(`session closed: ${reason}`));
    this.controllers = undefined;
  }
}
