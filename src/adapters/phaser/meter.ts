// How much of each frame the capsule costs: wall time (performance.now) summed over the plugin's
// update work, its event hooks, and — for sessions opened through the plugin — the capsule side of
// their links (decoding, checking and dispatching inbound messages; encoding and sending outbound
// ones), which runs in microtasks after the frame's own work. Nested measurements count once.

import type { Codec } from '../../protocol/codec.js';
import type { Link } from '../../links/link.js';
import { wrapLink } from '../../links/wrapLink.js';
import { objectCodec } from '../../protocol/objectCodec.js';

export interface FrameStats {
  /** Scene updates run while the plugin was started. */
  frames: number;
  /** Total ms spent in the capsule and the plugin's hooks over those frames. */
  capsuleMs: number;
  /**
   * Total ms spent drawing speech bubbles (making and changing Phaser Texts): rendering the game
   * would do for any speaker, kept apart from capsuleMs.
   */
  drawMs: number;
}

/** Runs a hook's work, timing it as the capsule's (FrameMeter.measure, for the plugin's hooks). */
export type Measure = (work: () => void) => void;

export class FrameMeter {
  frames = 0;
  private totalMs = 0;
  private drawMs = 0;
  private depth = 0;
  private startedAt = 0;

  constructor(private readonly now: () => number = () => globalThis.performance.now()) {}

  stats(): FrameStats {
    return { frames: this.frames, capsuleMs: this.totalMs, drawMs: this.drawMs };
  }

  /** Runs drawing work, timed apart from the capsule's (never nested in a measurement). */
  draw(work: () => void): void {
    const start = this.now();
    try {
      work();
    } finally {
      this.drawMs += this.now() - start;
    }
  }

  /** Runs `work`, adding its duration to the total unless an outer measurement already counts it. */
  measure<T>(work: () => T): T {
    if (this.depth++ === 0) this.startedAt = this.now();
    try {
      return work();
    } finally {
      if (--this.depth === 0) this.totalMs += this.now() - this.startedAt;
    }
  }

  /** The same link, with the capsule's handling of each inbound frame and each send measured. */
  link(link: Link): Link {
    return wrapLink(link, {
      // Most sends happen inside a measured update already: no closure, no clock read for those.
      send: (frame, send) => (this.depth > 0 ? send(frame) : this.measure(() => send(frame))),
      message: (frame, deliver) => this.measure(() => deliver(frame)),
    });
  }

  /**
   * The same codec, with encoding measured (decoding runs inside the measured inbound handler). The
   * object codec's encode hands the message over as it is: nothing to time, so it is left as it is.
   */
  codec(codec: Codec): Codec {
    if (codec === objectCodec) return codec;
    const measured: Codec = {
      name: codec.name,
      encode: (message) => this.measure(() => codec.encode(message)),
      decode: (frame, limits) => codec.decode(frame, limits),
      decodeTrusted: (frame) => codec.decodeTrusted(frame),
    };
    const encodeEvent = codec.encodeEvent;
    if (encodeEvent !== undefined) measured.encodeEvent = (message, shared) => this.measure(() => encodeEvent.call(codec, message, shared));
    return measured;
  }
}
