// The screenshot reader and the blank-canvas check, without a browser: images are written here by a
// small PNG encoder that uses every row filter, so the decoder's filters are all exercised.

import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { blankProblem, decodePng, type Pixels } from './png.js';

/** A PNG of `image` (RGB when `alpha` is false), row y written with filter y % 5. */
function encodePng(image: Pixels, alpha: boolean): Buffer {
  const channels = alpha ? 4 : 3;
  const stride = image.width * channels;
  const rows = new Uint8Array(image.height * stride);
  for (let p = 0; p < image.width * image.height; p++) for (let c = 0; c < channels; c++) rows[p * channels + c] = image.data[p * 4 + c]!;
  const raw = Buffer.alloc(image.height * (stride + 1));
  for (let y = 0; y < image.height; y++) {
    const filter = y % 5;
    raw[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i++) {
      const at = y * stride + i;
      const left = i >= channels ? rows[at - channels]! : 0;
      const up = y > 0 ? rows[at - stride]! : 0;
      const upLeft = y > 0 && i >= channels ? rows[at - stride - channels]! : 0;
      const p = left + up - upLeft;
      const paeth =
        Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft) ? left : Math.abs(p - up) <= Math.abs(p - upLeft) ? up : upLeft;
      const predicted = [0, left, up, (left + up) >> 1, paeth][filter]!;
      raw[y * (stride + 1) + 1 + i] = (rows[at]! - predicted) & 0xff;
    }
  }
  const chunk = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header.set([8, alpha ? 6 : 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A width×height image of one colour, with `paint` applied to each pixel. */
function image(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Pixels {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      data.set([...paint(x, y), 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

describe('decodePng', () => {
  const gradient = image(37, 23, (x, y) => [(x * 7) & 0xff, (y * 11) & 0xff, (x * y) & 0xff]);

  it('reads RGB and RGBA images written with all five row filters', () => {
    expect(decodePng(encodePng(gradient, false))).toEqual(gradient);
    expect(decodePng(encodePng(gradient, true))).toEqual(gradient);
  });

  it('refuses what is not a PNG', () => {
    expect(() => decodePng(Buffer.from('GIF89a not a png'))).toThrow('decodePng: not a PNG (bad signature)');
  });
});

describe('blankProblem', () => {
  it('fails a uniform canvas', () => {
    const blank = decodePng(
      encodePng(
        image(960, 640, () => [0, 0, 0]),
        false,
      ),
    );
    expect(blankProblem(blank)).toBe('the canvas is blank: 0 of 614400 pixels (0.000%) differ from the background rgb(0, 0, 0); at least 0.05% must');
  });

  it('fails a canvas of one colour with compression noise and a few stray pixels', () => {
    const noisy = image(960, 640, (x, y) => (x === 5 && y < 40 ? [255, 255, 255] : [40 + ((x + y) % 7), 90, 200]));
    expect(blankProblem(noisy)).toMatch(/^the canvas is blank: 40 of 614400 pixels/);
  });

  it('passes a canvas with one 20×20 sprite drawn on it', () => {
    const sprite = image(960, 640, (x, y) => (x >= 100 && x < 120 && y >= 50 && y < 70 ? [230, 50, 50] : [0, 0, 0]));
    expect(blankProblem(decodePng(encodePng(sprite, true)))).toBeUndefined();
  });
});
