// Shared set-up for the pi-peers tests: a simulator and a connected client on one ManualClock.

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ManualClock } from '../../src/base/clock.js';
import { PeersClient, PeersError, type PeersClientOptions, type RecordProblem } from '../../src/pi/index.js';
import { PeersSimulator, type PeersSimulatorOptions } from './peersSimulator.js';

export async function setup(simOptions: Partial<PeersSimulatorOptions> = {}, clientOptions: PeersClientOptions = {}) {
  const clock = new ManualClock();
  const sim = new PeersSimulator({ clock, ...simOptions });
  const client = await PeersClient.connect(sim.link(), { clock, ...clientOptions });
  const problems: RecordProblem[] = [];
  client.on('problem', (problem) => problems.push(problem));
  return { clock, sim, client, problems };
}

/** The rejection of a promise that must reject with a PeersError. */
export async function failure(promise: Promise<unknown>): Promise<PeersError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PeersError);
  return error as PeersError;
}

/** Whether a promise has settled yet (after letting queued work run). */
export function tracked<T>(promise: Promise<T>): { readonly settled: boolean; promise: Promise<T> } {
  const state = { settled: false, promise };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** The schema's ErrorCode enum, read from the schema file itself. */
export function schemaErrorCodes(): string[] {
  const schema = JSON.parse(readFileSync(new URL('../../schemas/pi-peers-1.0.schema.json', import.meta.url), 'utf8')) as {
    $defs: { ErrorCode: { enum: string[] } };
  };
  return schema.$defs.ErrorCode.enum;
}
