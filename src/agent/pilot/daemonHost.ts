// What the host shows of a character's session, for DaemonBackend: the generation it holds, which
// refusals of an open mean "that generation is taken", and stopping an earlier incarnation's wake.

import type { SessionRef } from '../../pi/daemonProtocol.js';
import type { DaemonClient } from '../../pi/daemonClient.js';

/** The part of DaemonClient (src/pi/daemonClient.ts) DaemonBackend uses. */
export type DaemonClientLike = Pick<DaemonClient, 'open' | 'attach' | 'wake' | 'steer' | 'followUp' | 'abort' | 'close' | 'status' | 'on' | 'state'>;

/** How often, and how far apart, an open looks for an aborted incarnation to be idle (pi-daemon needs some 60 ms). */
const IDLE_LOOKS = 40;
const IDLE_LOOK_MS = 50;

/** What the host answers a new open with when that generation is no longer free. */
export const GENERATION_TAKEN: ReadonlySet<string> = new Set(['stale_generation', 'session_policy_conflict', 'ephemeral_session_unavailable']);

/** The session as the host shows it now, or undefined when it has none to show. */
export async function hostSession(client: DaemonClientLike, sessionId: string): Promise<{ generation: number; state: unknown } | undefined> {
  try {
    // pi-daemon answers a session's status with the snapshot itself ({sessionId, generation, state, …}).
    const snapshot = (await client.status(sessionId)) as { generation?: unknown; state?: unknown } | undefined;
    const generation = snapshot?.generation;
    return typeof generation === 'number' && Number.isSafeInteger(generation) && generation >= 0 ? { generation, state: snapshot?.state } : undefined;
  } catch (error) {
    // Through the aicc gateway, a page may not ask after a session it has not opened: to this page, none.
    if (codeOf(error) === 'session_not_found' || notOpenedHere(error)) return undefined;
    throw error;
  }
}

/** One above the host's generation; 1 when it shows none (the open moves on if 1 is taken). */
export function nextGeneration(onHost: { generation: number } | undefined): number {
  return onHost === undefined ? 1 : onHost.generation + 1;
}

function notOpenedHere(error: unknown): boolean {
  const host = (error as { details?: { host?: { rule?: unknown } } } | null)?.details?.host;
  return codeOf(error) === 'denied_by_gateway' && host?.rule === 'not_opened';
}

export function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

export function retryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}

/** Aborts another incarnation's wake and waits (a little) until the host has no turn of it left. */
export async function stopIncarnation(client: DaemonClientLike, ref: SessionRef): Promise<void> {
  await client.abort(ref).catch(() => undefined);
  for (let look = 0; look < IDLE_LOOKS; look++) {
    const snapshot = (await client.status(ref.sessionId).catch(() => undefined)) as { state?: unknown; queuedTurns?: unknown } | undefined;
    if (snapshot === undefined || (snapshot.state === 'idle' && !(Number(snapshot.queuedTurns) > 0))) return;
    await new Promise((resolve) => setTimeout(resolve, IDLE_LOOK_MS));
  }
}
