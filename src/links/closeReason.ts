// A WebSocket close reason may hold at most 123 bytes of UTF-8 (RFC 6455 §5.5: a control frame's
// 125 bytes less the 2-byte code). Past that `ws` throws a RangeError and browsers a SyntaxError,
// so every reason this project hands to a socket's close() passes through here first.

/** The most bytes of UTF-8 a WebSocket close reason may hold. */
export const MAX_CLOSE_REASON_BYTES = 123;

const ELLIPSIS = '…'; // 3 bytes of UTF-8

/**
 * `text` as a close reason: lone surrogates (which UTF-8 cannot carry) replaced by U+FFFD, and cut
 * at a code point boundary, with "…", so that it fits `maxBytes` of UTF-8.
 */
export function closeReason(text: string, maxBytes: number = MAX_CLOSE_REASON_BYTES): string {
  let out = '';
  let bytes = 0;
  let cutAt = -1; // the length of `out` when it last fitted with room for the ellipsis
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let char: string;
    let size: number;
    if (c < 0x80) (char = text[i]!), (size = 1);
    else if (c < 0x800) (char = text[i]!), (size = 2);
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) (char = text.slice(i, i + 2)), (size = 4), i++;
    else if (c >= 0xd800 && c < 0xe000) (char = '\ufffd'), (size = 3);
    else (char = text[i]!), (size = 3);
    if (bytes + size > maxBytes) return `${out.slice(0, cutAt < 0 ? out.length : cutAt)}${ELLIPSIS}`;
    if (bytes + size <= maxBytes - 3) cutAt = out.length + char.length;
    out += char;
    bytes += size;
  }
  return out;
}
