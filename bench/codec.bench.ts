// The typed-binary codec against the JSON codec, on a realistic message of every aicc/0.1 type
// (bench/codec.examples.ts): the bytes of each frame, and the time of one encode + decode.
//
// What it measures: per message type, a bytes row (binary frame length against the UTF-8 length of
// the JSON text; ratio binary ÷ JSON) and a time row (round trips per second, µs in the note; ratio
// binary time ÷ JSON time), a round trip being `encode(message)` then `decode(frame, limits)` with
// the default inbound limits, checked once to give back an equal message. Each timed sample is
// a batch of round trips of one message, so the timer's cost does not count; tinybench's mean over
// its time budget, divided by the batch.
//
// Why the baseline is fair: jsonCodec is the default codec and what a WebSocket text frame carries,
// and both are timed through the same Codec interface doing the same work: encode to their own frame
// type (a string, a Uint8Array) and decode from it with the same bounds, including the same
// structural check (depth and hostile keys) that both codecs run on what they decode. Neither
// includes the message schema check, which the Wire runs after either codec.

import { isDeepStrictEqual } from 'node:util';
import { Bench } from 'tinybench';
import { binaryCodec } from '../src/protocol/binaryCodec.js';
import { jsonCodec, type Codec } from '../src/protocol/codec.js';
import { DEFAULT_INBOUND_LIMITS } from '../src/protocol/inbound.js';
import type { AiccMessage } from '../src/protocol/messages.js';
import { CODEC_EXAMPLES } from './codec.examples.js';
import { timeRatio, type BenchOptions, type BenchRow } from './row.js';

/** Round trips per timed sample. */
const BATCH = 50;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const bench = new Bench(
    options.quick
      ? { time: 0, iterations: 10, warmup: false, throws: true }
      : { time: 250, iterations: 100, warmup: true, warmupTime: 60, warmupIterations: 20, throws: true },
  );
  const bytes = new Map<string, number>();
  for (const { type, message } of CODEC_EXAMPLES) {
    for (const codec of [jsonCodec, binaryCodec]) {
      bytes.set(`${type} ${codec.name}`, frameBytes(roundTrip(codec, message, true)));
      bench.add(`${type} ${codec.name}`, () => {
        for (let i = 0; i < BATCH; i++) roundTrip(codec, message, false);
      });
    }
  }
  await bench.run();

  const rows: BenchRow[] = [];
  for (const { type, note } of CODEC_EXAMPLES) {
    const binaryBytes = bytes.get(`${type} binary`)!;
    const jsonBytes = bytes.get(`${type} json`)!;
    // A size, not a rate: ratio = capsule ÷ baseline (smaller is better), as BenchRow.ratio means it.
    rows.push({
      name: `codec ${type} bytes`,
      capsule: binaryBytes,
      baseline: jsonBytes,
      unit: 'B/frame',
      ratio: binaryBytes / jsonBytes,
      note: `${note}; binary ÷ JSON`,
    });
    const binaryUs = microseconds(bench, `${type} binary`);
    const jsonUs = microseconds(bench, `${type} json`);
    // Time as a rate (round trips/s, higher is faster) as the row contract wants; µs in the note.
    rows.push({
      name: `codec ${type} enc+dec`,
      capsule: 1e6 / binaryUs,
      baseline: 1e6 / jsonUs,
      unit: 'round trips/s',
      ratio: timeRatio(1e6 / binaryUs, 1e6 / jsonUs),
      note: `encode + decode ${us(binaryUs)} vs ${us(jsonUs)}; binary ÷ JSON time`,
    });
  }
  return rows;
}

/** Encodes and decodes once; with `check`, throws unless the message comes back equal. */
function roundTrip(codec: Codec, message: AiccMessage, check: boolean): string | Uint8Array {
  const frame = codec.encode(message) as string | Uint8Array;
  const decoded = codec.decode(frame, DEFAULT_INBOUND_LIMITS);
  if (check && !(decoded.ok && isDeepStrictEqual(decoded.value, message))) {
    throw new Error(`bench/codec: ${codec.name} does not round-trip the ${message.type} example${decoded.ok ? '' : ` (${decoded.message})`}`);
  }
  return frame;
}

function us(value: number): string {
  return `${value.toPrecision(3)} µs`;
}

function frameBytes(frame: string | Uint8Array): number {
  return typeof frame === 'string' ? Buffer.byteLength(frame, 'utf8') : frame.byteLength;
}

function microseconds(bench: Bench, name: string): number {
  const result = bench.getTask(name)?.result;
  if (result === undefined || result.state !== 'completed') throw new Error(`bench/codec: task "${name}" did not complete (${result?.state ?? 'missing'})`);
  return (result.latency.mean * 1000) / BATCH;
}
