// Carrying out one reply: its calls go to the capsule in order, each awaited, each outcome into the
// next digest. A plan seldom survives its first refused step (`go` failed, so `take` would act in
// the wrong room), so the calls after a refusal are skipped and told as such.

import type { AgentClient } from '../agentClient.js';
import type { Digest } from './digest.js';
import type { Quotas } from './quotas.js';
import type { ParsedCall } from './replyParser.js';
import type { PilotStats } from './stats.js';

export interface ExecutionContext {
  client: AgentClient;
  digest: Digest;
  quotas: Quotas;
  stats: PilotStats;
  /** Most calls taken from one reply. */
  maxCalls: number;
  /** False once the decision was aborted or stopped: nothing more is sent. */
  stillCurrent(): boolean;
  /** Told just before each call goes to the capsule (the decision's first call time is taken here). */
  sending?(call: ParsedCall): void;
}

export async function executeCalls(calls: readonly ParsedCall[], context: ExecutionContext): Promise<void> {
  const { client, digest, quotas, stats, maxCalls } = context;
  let refused = false;
  for (const [index, call] of calls.entries()) {
    const why = !context.stillCurrent()
      ? 'your turn was aborted'
      : index >= maxCalls
        ? `over the limit of ${maxCalls} calls per reply`
        : refused
          ? 'an earlier call was refused'
          : undefined;
    if (why !== undefined) {
      digest.addSkipped(call, why);
      stats.callsSkipped++;
      continue;
    }
    context.sending?.(call);
    const outcome = await client.call(call.tool, call.input);
    stats.callsSent++;
    // Only a call that reached its handler costs quota (docs/PROTOCOL.md).
    if (outcome.meta.source === 'handler') quotas.used(call.tool);
    digest.addResult(call, outcome);
    if (!outcome.ok) {
      refused = true;
      stats.callsRefused++;
    }
  }
}
