import { describe, expect, it } from 'vitest';
import { closeReason, MAX_CLOSE_REASON_BYTES } from '../../src/links/closeReason.js';

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

describe('closeReason', () => {
  it('keeps a reason that fits as it is', () => {
    expect(closeReason('replay gap')).toBe('replay gap');
    const exact = 'x'.repeat(MAX_CLOSE_REASON_BYTES);
    expect(closeReason(exact)).toBe(exact);
  });

  it('bounds a reason in UTF-8 bytes, not UTF-16 units: 60 Cyrillic letters are 120 units but 120 bytes… and 61 are over', () => {
    const cyrillic = 'ж'.repeat(62); // 124 bytes, 62 units: under a 120-unit cut, over 123 bytes
    const cut = closeReason(cyrillic);
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.startsWith('жжж')).toBe(true);
  });

  it('never splits a surrogate pair, and replaces lone surrogates with U+FFFD', () => {
    const emoji = '😀'.repeat(40); // 160 bytes
    const cut = closeReason(emoji);
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
    expect(cut.replace('…', '')).toMatch(/^(😀)+$/u);
    expect(closeReason('a\ud800b')).toBe('a\ufffdb');
    expect(closeReason('\udc00'.repeat(50))).toMatch(/^\ufffd+…$/u);
    expect(bytes(closeReason('\udc00'.repeat(50)))).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
  });

  it('always fits, whatever the text', () => {
    for (const unit of ['a', 'é', 'ж', '中', '😀', '\ud800']) {
      for (let n = 0; n < 200; n += 7) expect(bytes(closeReason(unit.repeat(n)))).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
    }
  });
});
