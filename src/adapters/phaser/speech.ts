// Speech bubbles: a line of text above a speaker that follows it and goes after a while (scene
// time). One bubble per speaker — a new line replaces the old — so their number is bounded by the
// characters on stage.

import type * as Phaser from 'phaser';
import type { Positioned } from './entities.js';

export interface BubbleStyle {
  /** Phaser Text style of the bubble. Default: 12 px dark text on white, wrapped at 180 px. */
  text?: Phaser.Types.GameObjects.Text.TextStyle;
  /** Gap between the top of the speaker and the bubble, px. Default 6. */
  gap?: number;
  /** Depth of bubbles (drawn above the world). Default 1000. */
  depth?: number;
}

const DEFAULT_TEXT_STYLE: Phaser.Types.GameObjects.Text.TextStyle = {
  fontFamily: 'sans-serif',
  fontSize: '12px',
  color: '#1b1b1b',
  backgroundColor: '#ffffff',
  padding: { x: 4, y: 2 },
  wordWrap: { width: 180 },
};

/** How long a line of `length` characters stays up when no duration is asked for, ms. */
export function readingTimeMs(length: number): number {
  return Math.min(6000, 1500 + 50 * length);
}

interface Bubble {
  speaker: Positioned;
  line: string;
  until: number;
  shown: boolean;
  /** The Text drawn for this speaker, reused from line to line (a new Text costs a new texture). */
  text: Phaser.GameObjects.Text | undefined;
  /** What the Text shows, when it was last drawn ('' when hidden). */
  drawn: string;
}

/**
 * The bubbles' logic (who says what until when) runs in the tools and the plugin's update; drawing
 * them — making or changing a Text, which uploads a texture — runs in `draw`, which the plugin
 * times apart from the capsule's own work (FrameStats.drawMs).
 */
export class Bubbles {
  private readonly bubbles = new Map<string, Bubble>();
  // Each frame visits only these: the bubbles up now, and those whose Text is behind their line.
  private readonly shown = new Map<string, Bubble>();
  private readonly stale = new Set<Bubble>();
  private time = 0;

  constructor(
    private readonly scene: Phaser.Scene,
    private readonly style: BubbleStyle = {},
  ) {}

  /** Bubbles showing now. */
  get size(): number {
    return this.shown.size;
  }

  /** The line `id` is saying now, if any. */
  line(id: string): string | undefined {
    const bubble = this.bubbles.get(id);
    return bubble?.shown === true ? bubble.line : undefined;
  }

  show(id: string, speaker: Positioned, line: string, durationMs: number): void {
    let bubble = this.bubbles.get(id);
    if (bubble !== undefined && bubble.speaker !== speaker) {
      this.forget(id);
      bubble = undefined;
    }
    if (bubble === undefined) {
      bubble = { speaker, line, until: 0, shown: false, text: undefined, drawn: '' };
      this.bubbles.set(id, bubble);
    }
    bubble.line = line;
    bubble.until = this.time + durationMs;
    bubble.shown = true;
    this.shown.set(id, bubble);
    this.stale.add(bubble);
  }

  hide(id: string): void {
    const bubble = this.bubbles.get(id);
    if (bubble === undefined || !bubble.shown) return;
    bubble.shown = false;
    this.shown.delete(id);
    this.stale.add(bubble);
  }

  /** Hides the bubble of `id` and destroys its Text (its speaker left). */
  forget(id: string): void {
    const bubble = this.bubbles.get(id);
    if (bubble === undefined) return;
    this.hide(id);
    this.bubbles.delete(id);
    this.stale.delete(bubble);
    bubble.text?.destroy();
  }

  /** Takes down the lines whose time is up, and those of speakers that are gone. */
  update(deltaMs: number): void {
    this.time += deltaMs;
    for (const [id, bubble] of this.shown) {
      if ((bubble.speaker as { scene?: unknown }).scene == null) this.forget(id);
      else if (bubble.until <= this.time) this.hide(id);
    }
  }

  /** Brings the Texts in line with the bubbles: new lines drawn, old ones hidden, all following their speakers. */
  draw(): void {
    for (const bubble of this.stale) {
      const want = bubble.shown ? bubble.line : '';
      if (want !== bubble.drawn) {
        if (bubble.text === undefined) {
          bubble.text = this.scene.add.text(0, 0, want, { ...DEFAULT_TEXT_STYLE, ...this.style.text });
          bubble.text.setOrigin(0.5, 1);
          bubble.text.setDepth(this.style.depth ?? 1000);
        } else if (want !== '') {
          bubble.text.setText(want);
        }
        bubble.text.setVisible(want !== '');
        bubble.drawn = want;
      }
    }
    this.stale.clear();
    for (const bubble of this.shown.values()) if (bubble.text !== undefined) this.place(bubble.speaker, bubble.text);
  }

  clear(): void {
    for (const id of [...this.bubbles.keys()]) this.forget(id);
  }

  private place(speaker: Positioned, text: Phaser.GameObjects.Text): void {
    const body = speaker as Positioned & { displayHeight?: number; originY?: number };
    const above = (body.displayHeight ?? 0) * (body.originY ?? 0.5);
    text.setPosition(body.x, body.y - above - (this.style.gap ?? 6));
  }
}
