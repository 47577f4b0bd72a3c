// Speech bubbles: a line of text above a speaker that follows it and goes after a while (scene
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
  shown: boolean;
}

export class Bubbles {
  /** One Text per speaker, reused from line to line: a new Text costs a new texture each time. */
  private readonly bubbles = new Map<string, Bubble>();
  private time = 0;
  private visible = 0;

  constructor(
    private readonly scene: Phaser.Scene,
    private readonly style: BubbleStyle = {},
  ) {}

  /** Bubbles showing now. */
  get size(): number {
    return this.visible;
  }

  /** The line `id` is saying now, if any. */
  line(id: string): string | undefined {
    const bubble = this.bubbles.get(id);
    return bubble?.shown === true ? bubble.text.text : undefined;
  }

  show(id: string, speaker: Positioned, line: string, durationMs: number): void {
    let bubble = this.bubbles.get(id);
    if (bubble === undefined || bubble.speaker !== speaker) {
      this.forget(id);
      const text = this.scene.add.text(speaker.x, speaker.y, line, { ...DEFAULT_TEXT_STYLE, ...this.style.text });
      text.setOrigin(0.5, 1);
      text.setDepth(this.style.depth ?? 1000);
      bubble = { text, speaker, until: 0, shown: false };
      this.bubbles.set(id, bubble);
    } else {
      bubble.text.setText(line);
    }
    bubble.until = this.time + durationMs;
    if (!bubble.shown) this.visible++;
    bubble.shown = true;
    bubble.text.setVisible(true);
    this.place(bubble);
  }

  hide(id: string): void {
    const bubble = this.bubbles.get(id);
    if (bubble === undefined || !bubble.shown) return;
    bubble.shown = false;
    this.visible--;
    bubble.text.setVisible(false);
  }

  /** Hides and destroys the bubble of `id` (its speaker left). */
  forget(id: string): void {
    const bubble = this.bubbles.get(id);
    if (bubble === undefined) return;
    this.hide(id);
    this.bubbles.delete(id);
    bubble.text.destroy();
  }

  /** Follows the speakers and takes down the lines whose time is up. */
  update(deltaMs: number): void {
    this.time += deltaMs;
    for (const [id, bubble] of this.bubbles) {
      if (!bubble.shown) continue;
      if ((bubble.speaker as { scene?: unknown }).scene == null) this.forget(id);
      else if (bubble.until <= this.time) this.hide(id);
      else this.place(bubble);
    }
  }

  clear(): void {
    for (const id of [...this.bubbles.keys()]) this.forget(id);
  }

  private place(bubble: Bubble): void {
    const speaker = bubble.speaker as Positioned & { displayHeight?: number; originY?: number };
    const above = (speaker.displayHeight ?? 0) * (speaker.originY ?? 0.5);
    bubble.text.setPosition(speaker.x, speaker.y - above - (this.style.gap ?? 6));
  }
}
