// Reads the PNG screenshots Chromium takes (8-bit RGB or RGBA, not interlaced) into pixels, and
// says whether an image is blank — one colour all over, as a canvas is when nothing was drawn.

import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row by row. */
  data: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(png: Uint8Array): Pixels {
  const buffer = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buffer.length < 8 || !buffer.subarray(0, 8).equals(SIGNATURE)) throw new Error('decodePng: not a PNG (bad signature)');
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buffer.length; ) {
    const length = buffer.readUInt32BE(at);
    const type = buffer.toString('latin1', at + 4, at + 8);
    const body = buffer.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = colour === 2 ? 3 : colour === 6 ? 4 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0)
        throw new Error(`decodePng: only 8-bit RGB/RGBA without interlace (got depth ${depth}, colour type ${colour}, interlace ${interlace})`);
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (channels === 0) throw new Error('decodePng: no IHDR chunk');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`decodePng: ${raw.length} bytes of image data for ${width}×${height}×${channels}`);
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? rows[out + i - channels]! : 0;
      const up = y > 0 ? rows[out - stride + i]! : 0;
      const upLeft = y > 0 && i >= channels ? rows[out - stride + i - channels]! : 0;
      let predicted: number;
      if (filter === 0) predicted = 0;
      else if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) predicted = paeth(left, up, upLeft);
      else throw new Error(`decodePng: row ${y} has unknown filter ${filter}`);
      rows[out + i] = (line[i]! + predicted) & 0xff;
    }
  }
  if (channels === 4) return { width, height, data: rows };
  const data = new Uint8Array(width * height * 4);
  for (let p = 0, q = 0; p < rows.length; p += 3, q += 4) {
    data[q] = rows[p]!;
    data[q + 1] = rows[p + 1]!;
    data[q + 2] = rows[p + 2]!;
    data[q + 3] = 255;
  }
  return { width, height, data };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Pixels further than this from the background, in any channel, count as drawn (compression noise is smaller). */
export const BLANK_TOLERANCE = 16;
/** An image with fewer drawn pixels than this share is blank: one sprite of 20×20 on 960×640 is 0.07%. */
export const MIN_DRAWN_SHARE = 0.0005;

/**
 * Says why an image is blank — its pixels nearly all one colour — or undefined when something is
 * drawn on it. The background is the commonest colour of a sparse sample.
 */
export function blankProblem(image: Pixels): string | undefined {
  const total = image.width * image.height;
  if (total === 0) return 'the image has no pixels';
  const counts = new Map<number, number>();
  const step = Math.max(1, Math.floor(total / 4096));
  for (let p = 0; p < total; p += step) {
    const key = (image.data[p * 4]! << 16) | (image.data[p * 4 + 1]! << 8) | image.data[p * 4 + 2]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const background = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const [r, g, b] = [background >> 16, (background >> 8) & 0xff, background & 0xff];
  let drawn = 0;
  for (let p = 0; p < total; p++) {
    const at = p * 4;
    if (
      Math.abs(image.data[at]! - r) > BLANK_TOLERANCE ||
      Math.abs(image.data[at + 1]! - g) > BLANK_TOLERANCE ||
      Math.abs(image.data[at + 2]! - b) > BLANK_TOLERANCE
    )
      drawn++;
  }
  if (drawn / total >= MIN_DRAWN_SHARE) return undefined;
  return `the canvas is blank: ${drawn} of ${total} pixels (${((drawn / total) * 100).toFixed(3)}%) differ from the background rgb(${r}, ${g}, ${b}); at least ${(MIN_DRAWN_SHARE * 100).toFixed(2)}% must`;
}
