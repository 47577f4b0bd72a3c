// Identifiers. Session ids are random (version 4) UUIDs. A bridge's message ids carry the
// session's outbound sequence number in their last 48 bits, so that an agent resuming a session can
// name the last message it holds by its id alone (docs/PROTOCOL.md, "Resume").

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += HEX[bytes[i]!];
  return out;
}

/** Fills a buffer with random bytes. The default is the platform's cryptographic source. */
export type RandomBytes = (target: Uint8Array) => void;

export const cryptoBytes: RandomBytes = (target) => {
  globalThis.crypto.getRandomValues(target);
};

/** A random version 4 UUID; a seeded `fill` makes it reproducible (headless runs, replays). */
export function randomUuid(fill: RandomBytes = cryptoBytes): string {
  const bytes = new Uint8Array(16);
  fill(bytes);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return `${hex(bytes, 0, 4)}-${hex(bytes, 4, 6)}-${hex(bytes, 6, 8)}-${hex(bytes, 8, 10)}-${hex(bytes, 10, 16)}`;
}

const SEQUENCE_DIGITS = 12;

/** The last three hex digits of a sequence, 000 to fff: made once, by the first SequencedIds. */
let TAILS: string[] | undefined;
const MAX_SEQUENCE = 2 ** 48 - 1;

/**
 * Message ids for one session's outbound stream: a random prefix (a version 8 UUID's first 20
 * hex digits) followed by the sequence number, so `sequenceOf` reads the number back.
 */
export class SequencedIds {
  readonly prefix: string;
  /** The prefix and the sequence's digits but its last three, for the run of 4,096 ids it covers. */
  private head = '';
  private headOf = -1;

  constructor(fill: RandomBytes = cryptoBytes) {
    const bytes = new Uint8Array(10);
    fill(bytes);
    bytes[6] = (bytes[6]! & 0x0f) | 0x80;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    this.prefix = `${hex(bytes, 0, 4)}-${hex(bytes, 4, 6)}-${hex(bytes, 6, 8)}-${hex(bytes, 8, 10)}-`;
    TAILS ??= Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, '0'));
  }

  /** One id per message sent: a concatenation of two strings, the head changing once every 4,096 ids. */
  idOf(sequence: number): string {
    const high = Math.floor(sequence / 4096);
    if (high !== this.headOf) {
      this.headOf = high;
      // The first run of ids (most sessions of a large population never leave it) makes no digits.
      this.head = this.prefix + (high === 0 ? '000000000' : high.toString(16).padStart(SEQUENCE_DIGITS - 3, '0'));
    }
    return this.head + TAILS![sequence & 0xfff]!;
  }

  /** The sequence number a message id of this stream carries, or undefined for a foreign id. */
  sequenceOf(messageId: string): number | undefined {
    if (messageId.length !== this.prefix.length + SEQUENCE_DIGITS) return undefined;
    if (!messageId.toLowerCase().startsWith(this.prefix)) return undefined;
    const digits = messageId.slice(this.prefix.length);
    if (!/^[0-9a-fA-F]+$/.test(digits)) return undefined;
    const sequence = Number.parseInt(digits, 16);
    return Number.isSafeInteger(sequence) && sequence <= MAX_SEQUENCE ? sequence : undefined;
  }
}

/** The id a stream with `prefix` (SequencedIds.prefix) gives `sequence`: what idOf makes, from the prefix alone. */
export function idOfSequence(prefix: string, sequence: number): string {
  return prefix + sequence.toString(16).padStart(SEQUENCE_DIGITS, '0');
}

/** The sequence number carried by any sequenced message id (the last 12 hex digits). */
export function sequenceOfId(messageId: string): number {
  return Number.parseInt(messageId.slice(-SEQUENCE_DIGITS), 16);
}
