// mountInspector: a toggleable overlay that shows what a capsule's agents are doing. It listens to
// the capsule's public events only, records into bounded lists, and redraws at most once a frame,
// and only while open. dispose() takes back everything mount added: DOM, style, listeners.

import type { Capsule } from '../runtime/capsule.js';
import { CapsuleError } from '../base/errors.js';
import { animationFrames, FrameBatch, type FrameScheduler } from './frames.js';
import { Panel } from './panel.js';
import { InspectorRecord } from './record.js';
import { INSPECTOR_CSS } from './style.js';

/** Rows kept per list (calls, events, sessions, quota) unless `maxRows` says otherwise. */
export const DEFAULT_MAX_ROWS = 200;
/** The most `maxRows` may be: beyond it the panel itself would slow the page down. */
export const MAX_ROWS_LIMIT = 5000;
/** The key that opens and closes the panel, unless `key` says otherwise. */
export const DEFAULT_TOGGLE_KEY = '`';

export interface InspectorOptions {
  /** Where the overlay goes. Default: the document's body. */
  parent?: HTMLElement;
  /** Open at mount. Default true. */
  open?: boolean;
  /** Rows kept per list; older ones are dropped. Default DEFAULT_MAX_ROWS (200), at most MAX_ROWS_LIMIT. */
  maxRows?: number;
  /** The KeyboardEvent.key that toggles the panel; null for none. Default "`" (backquote). */
  key?: string | null;
  /** The clock call latency is measured on. Default: the capsule's clock. */
  now?: () => number;
  /** How redraws are batched. Default: animationFrames(), at most one redraw per REDRAW_INTERVAL_MS (100 ms), in an animation frame. */
  schedule?: FrameScheduler;
}

export interface Inspector {
  /** The overlay's root, with the attribute `data-aicc-inspector`. */
  readonly element: HTMLElement;
  readonly isOpen: boolean;
  open(): void;
  close(): void;
  toggle(): void;
  /** Removes the overlay and its style, and stops listening to the capsule and the page. Idempotent. */
  dispose(): void;
}

export function mountInspector(capsule: Capsule, options: InspectorOptions = {}): Inspector {
  const settings = checkOptions(capsule, options);
  const doc = settings.parent.ownerDocument;
  const now = options.now ?? (() => capsule.clock.now());
  let isOpen = options.open ?? true;
  let disposed = false;

  const frames = new FrameBatch(settings.schedule, () => {
    if (isOpen && !disposed) panel.render();
  });
  // Redraw requests are dropped while closed: opening draws at once.
  const record = new InspectorRecord(capsule, settings.maxRows, now, () => {
    if (isOpen) frames.request();
  });
  const panel = new Panel(doc, capsule, record, settings.maxRows, now);

  const style = doc.createElement('style');
  style.setAttribute('data-aicc-inspector-style', '');
  style.textContent = INSPECTOR_CSS;
  (doc.head ?? doc.documentElement).append(style);

  const setOpen = (open: boolean): void => {
    if (disposed) return;
    isOpen = open;
    panel.showOpen(open);
    if (open) {
      frames.cancel();
      panel.render();
    } else frames.cancel();
  };

  const onClick = (): void => setOpen(!isOpen);
  const onKey = (event: KeyboardEvent): void => {
    if (settings.key === null || event.key !== settings.key || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isEditable(event.target)) return;
    event.preventDefault();
    setOpen(!isOpen);
  };
  panel.button.addEventListener('click', onClick);
  if (settings.key !== null) doc.addEventListener('keydown', onKey);

  settings.parent.append(panel.root);
  panel.showOpen(isOpen);
  if (isOpen) panel.render();

  return {
    element: panel.root,
    get isOpen() {
      return isOpen;
    },
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!isOpen),
    dispose() {
      if (disposed) return;
      disposed = true;
      record.stop();
      frames.cancel();
      panel.button.removeEventListener('click', onClick);
      doc.removeEventListener('keydown', onKey);
      panel.root.remove();
      style.remove();
    },
  };
}

interface Settings {
  parent: HTMLElement;
  maxRows: number;
  key: string | null;
  schedule: FrameScheduler;
}

function checkOptions(capsule: Capsule, options: InspectorOptions): Settings {
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `mountInspector: ${what}`);
  };
  if (capsule === null || typeof capsule !== 'object' || typeof capsule.on !== 'function') fail('the first argument must be a Capsule (from createCapsule)');
  const parent = options.parent ?? (typeof document === 'undefined' ? undefined : document.body);
  if (parent === undefined || parent === null) fail('no document body to mount in; pass options.parent, or mount in a browser page once <body> exists');
  if (typeof parent!.append !== 'function' || parent!.ownerDocument === null) fail('options.parent must be an element of a document');
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > MAX_ROWS_LIMIT) fail(`expected maxRows to be an integer from 1 to ${MAX_ROWS_LIMIT}, got ${String(maxRows)}`);
  const key = options.key === undefined ? DEFAULT_TOGGLE_KEY : options.key;
  if (key !== null && (typeof key !== 'string' || key.length === 0)) fail(`expected key to be a KeyboardEvent.key string or null, got ${String(key)}`);
  if (options.now !== undefined && typeof options.now !== 'function') fail('options.now must be a function returning milliseconds');
  if (options.schedule !== undefined && typeof options.schedule !== 'function') fail('options.schedule must be a function (callback) => cancel');
  return { parent: parent!, maxRows, key, schedule: options.schedule ?? animationFrames() };
}

/** Typing a backquote into a field must not toggle the panel. */
function isEditable(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (element === null || typeof element.tagName !== 'string') return false;
  return element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName);
}
