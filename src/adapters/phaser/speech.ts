// Speech bubbles: a line of text above a speaker that follows it and fades after a while (scene
// time). One bubble per speaker — a new line replaces the old — so their number is bounded by the
// characters on stage.

import type Phaser from 'phaser';
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
  text: Phaser.GameObjects.Text;
  speaker: Positioned;
  until: number;
}

export class Bubbles {
  private readonly shown = new Map<string, Bubble>();
  private time = 0;

  constructor(
    private readonly scene: Phaser.Scene,
    private readonly style: BubbleStyle = {},
  ) {}

  get size(): number {
    return this.shown.size;
  }

  /** The line `id` is saying now, if any. */
  line(id: string): string | undefined {
    return this.shown.get(id)?.text.text;
  }

  show(id: string, speaker: Positioned, line: string, durationMs: number): void {
    this.hide(id);
    const text = this.scene.add.text(speaker.x, speaker.y, line, { ...DEFAULT_TEXT_STYLE, ...this.style.text });
    text.setOrigin(0.5, 1);
    text.setDepth(this.style.depth ?? 1000);
    const bubble = { text, speaker, until: this.time + durationMs };
    this.place(bubble);
    this.shown.set(id, bubble);
  }

  hide(id: string): void {
    const bubble = this.shown.get(id);
    if (bubble === undefined) return;
    this.shown.delete(id);
    bubble.text.destroy();
  }

  /** Follows the speakers and takes down the lines whose time is up. */
  update(deltaMs: number): void {
    this.time += deltaMs;
    for (const [id, bubble] of this.shown) {
      if (bubble.until <= this.time || (bubble.speaker as { scene?: unknown }).scene == null) this.hide(id);
      else this.place(bubble);
    }
  }

  clear(): void {
    for (const id of [...this.shown.keys()]) this.hide(id);
  }

  private place(bubble: Bubble): void {
    const speaker = bubble.speaker as Positioned & { displayHeight?: number; originY?: number };
    const above = (speaker.displayHeight ?? 0) * (speaker.originY ?? 0.5);
    bubble.text.setPosition(speaker.x, speaker.y - above - (this.style.gap ?? 6));
  }
}
