// Shared set-up for the pi-daemon tests: a simulator and a connected DaemonClient on one ManualClock,
// with everything the client reports collected.

import { expect } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import {
  DaemonClient,
  DaemonError,
  type DaemonClientOptions,
  type DaemonEvent,
  type RecordProblem,
  type ReconnectReport,
  type SessionRef,
  type StreamReport,
} from '../../src/pi/index.js';
import { DaemonSimulator, type DaemonSimulatorOptions } from './daemonSimulator.js';

export const CHAR: SessionRef = { sessionId: 'npc-cleo', generation: 1 };

export const OPEN = { cwd: '/game', session: { mode: 'memory' as const }, systemPrompt: 'You play Cleo.' };

export async function daemonSetup(simOptions: DaemonSimulatorOptions = {}, clientOptions: DaemonClientOptions = {}) {
  const clock = new ManualClock();
  const sim = new DaemonSimulator({ clock, ...simOptions });
  const client = await DaemonClient.connect(sim.link(), { clock, ...clientOptions });
  const seen = collect(client);
  return { clock, sim, client, ...seen };
}

/** Everything a client emits, in lists. */
export function collect(client: DaemonClient) {
  const events: DaemonEvent[] = [];
  const problems: RecordProblem[] = [];
  const reports: StreamReport[] = [];
  const reconnects: ReconnectReport[] = [];
  client.on('event', (event) => events.push(event));
  client.on('problem', (problem) => problems.push(problem));
  client.on('stream', (report) => reports.push(report));
  client.on('reconnect', (report) => reconnects.push(report));
  return { events, problems, reports, reconnects };
}

/** Opens and attaches CHAR (or `ref`). */
export async function openAttached(client: DaemonClient, ref: SessionRef = CHAR, mode: 'memory' | 'new' = 'memory') {
  await client.open(ref, { ...OPEN, session: { mode } });
  return client.attach(ref);
}

/** The rejection of a promise that must reject with a DaemonError. */
export async function daemonFailure(promise: Promise<unknown>): Promise<DaemonError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DaemonError);
  return error as DaemonError;
}
