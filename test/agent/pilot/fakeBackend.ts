// A scripted ChatBackend: no network, no model. Each reply comes from a script — a fixed text, or a
// function of what the model was sent since its last reply — and a test can hold a reply back to
// keep the "model" busy while it sends news.

import type { ChatBackend, ChatSignal, SendKind } from '../../../src/agent/pilot/backend.js';

export type ScriptStep = string | null | ((sent: Sent[]) => string | null);

export interface Sent {
  kind: SendKind;
  text: string;
}

export class ScriptedBackend implements ChatBackend {
  /** Everything sent, in order. */
  readonly sent: Sent[] = [];
  aborts = 0;
  closed = false;
  /** Replies asked for, and the signals they were asked with. */
  readonly signals: Array<AbortSignal | undefined> = [];
  /** When set, sends fail with this message. */
  failSends: string | undefined;
  /** When set, the backend answers whether the model has a character's tools natively. */
  callsToolsNatively?: (character: string) => Promise<boolean>;
  private running = false;
  private sinceReply: Sent[] = [];
  private held: { release: () => void; promise: Promise<void> } | undefined;

  /** `fallback` answers once the script runs out. */
  constructor(
    private readonly script: ScriptStep[] = [],
    private readonly fallback: ScriptStep = '```aicc\n```',
  ) {}

  get busy(): boolean {
    return this.running;
  }

  /** The next reply waits until `release()`; the backend stays busy meanwhile. */
  hold(): () => void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.held = { release, promise };
    return release;
  }

  async send(kind: SendKind, text: string): Promise<void> {
    if (this.failSends !== undefined) throw new Error(this.failSends);
    const entry = { kind, text };
    this.sent.push(entry);
    this.sinceReply.push(entry);
    if (kind === 'prompt') this.running = true;
  }

  async reply(signal?: AbortSignal): Promise<string | null> {
    this.signals.push(signal);
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) {
      await Promise.race([held.promise, new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }))]);
    }
    if (signal?.aborted === true) return null;
    const step = this.script.length > 0 ? this.script.shift()! : this.fallback;
    const sent = this.sinceReply;
    this.sinceReply = [];
    this.running = false;
    return typeof step === 'function' ? step(sent) : step;
  }

  async abort(): Promise<void> {
    this.aborts++;
    this.running = false;
    this.held?.release();
  }

  close(): void {
    this.closed = true;
  }

  /** Texts sent of one kind. */
  texts(kind?: SendKind): string[] {
    return this.sent.filter((entry) => kind === undefined || entry.kind === kind).map((entry) => entry.text);
  }
}

/** A scripted backend that also sees the model at work: the test tells it what the "agent" reports. */
export class SignallingBackend extends ScriptedBackend {
  private readonly listeners = new Set<(signal: ChatSignal) => void>();

  observe(listener: (signal: ChatSignal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reports a signal to whoever observes, as a backend does when its agent tells it something. */
  signal(signal: ChatSignal): void {
    for (const listener of this.listeners) listener(signal);
  }

  get observers(): number {
    return this.listeners.size;
  }
}

/** A reply in the canonical form. */
export function aicc(...calls: Array<{ tool: string; input?: Record<string, unknown> }>): string {
  return ['```aicc', ...calls.map((call) => JSON.stringify({ tool: call.tool, input: call.input ?? {} })), '```'].join('\n');
}
