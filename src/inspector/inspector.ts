// mountInspector: a toggleable overlay that shows what a capsule's agents are doing. It listens to
// the capsule's public events only, records into bounded lists (each character's recent calls in a
// ring of its own), and redraws at most once a frame, and only while open. It tells the page the
// room its open panel takes on its side (room.ts), so a page can keep its game beside it. It lives as long as its capsule: a disposed capsule takes its inspector
// with it. Mounted on a holder of capsules instead (the Phaser plugin, whose scene makes a new
// capsule at each start), it shows the holder's live capsule, stays out of view while there is
// none, and keeps its place, filters and open state across the change. dispose() takes back
// everything mount added: DOM, style, listeners.

import type { Capsule } from '../runtime/capsule.js';
import { CapsuleError, type CapsuleErrorCode } from '../base/errors.js';
import { animationFrames, FrameBatch, type FrameScheduler } from './frames.js';
import { DOCKS, Overlay, type Dock, type FilterName, type InspectorFilter } from './overlay.js';
import { Panel } from './panel.js';
import { InspectorRecord, type DecisionShown } from './record.js';
import { measureRoom, sameRoom } from './room.js';
import { addStyle, type Room } from './style.js';

/** Rows kept per list (calls, events, sessions, quota) unless `maxRows` says otherwise. */
export const DEFAULT_MAX_ROWS = 200;
/** Calls kept per character (the character filter shows them) unless `callsPerCharacter` says otherwise. */
export const DEFAULT_CALLS_PER_CHARACTER = 50;
/** The most `maxRows` may be: beyond it the panel itself would slow the page down. */
export const MAX_ROWS_LIMIT = 5000;
/** The key that opens and closes the panel, unless `key` says otherwise. */
export const DEFAULT_TOGGLE_KEY = '`';
/** Where the overlay sits unless `dock` says otherwise: a corner, at most half the page wide and high. */
export const DEFAULT_DOCK: Dock = 'bottom-right';

/**
 * Something that holds one capsule at a time and hands over each new one: the Phaser plugin
 * (`this.aicc`), whose scene makes a fresh capsule every time it starts. `onCapsule` calls the
 * listener with the capsule held now, if any, and with each later one; it returns the unsubscribe.
 */
export interface CapsuleHolder {
  onCapsule(listener: (capsule: Capsule) => void): () => void;
}

export interface InspectorOptions {
  /** Where the overlay goes. Default: the document's body. */
  parent?: HTMLElement;
  /** Open at mount. Default true. */
  open?: boolean;
  /** Where it sits: a corner or a side (DOCKS). Default DEFAULT_DOCK, 'bottom-right'. */
  dock?: Dock;
  /**
   * Rows kept per list — the newest calls of everyone, events, sessions, quota rows — and the most
   * characters whose own calls are kept; older ones are dropped. Default DEFAULT_MAX_ROWS (200), at most MAX_ROWS_LIMIT.
   */
  maxRows?: number;
  /** Each character's own recent calls kept, which its filter shows. Default DEFAULT_CALLS_PER_CHARACTER (50), at most MAX_ROWS_LIMIT. */
  callsPerCharacter?: number;
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
  /** The capsule shown; undefined while a holder has no live one, and after dispose. */
  readonly capsule: Capsule | undefined;
  readonly dock: Dock;
  readonly filter: Readonly<InspectorFilter>;
  open(): void;
  close(): void;
  toggle(): void;
  /** Moves the overlay to a corner or a side. */
  dockTo(dock: Dock): void;
  /** Shows only one character's rows, or one tool's; null shows all again. What is not given stays. */
  setFilter(filter: Partial<InspectorFilter>): void;
  /**
   * Lists what a decision of `character`'s chat model cost, among the events (kind `decision`). The
   * inspector cannot see a pilot: hand it each record, `pilot.on('cost', (cost) => inspector.decision('cleo', cost))`.
   * Dropped while no capsule is shown.
   */
  decision(character: string, cost: DecisionShown): void;
  /** Removes the overlay and its style, and stops listening to the capsule (or holder) and the page. Idempotent. */
  dispose(): void;
}

export function mountInspector(target: Capsule | CapsuleHolder, options: InspectorOptions = {}): Inspector {
  const settings = checkOptions(target, options);
  const doc = settings.parent.ownerDocument;
  let isOpen = options.open ?? true;
  let dock = settings.dock;
  const filter: InspectorFilter = { character: null, tool: null };
  let disposed = false;
  let bound: { capsule: Capsule; record: InspectorRecord; stop: () => void } | undefined;

  const overlay = new Overlay(doc, settings.key);
  const panel = new Panel(doc, settings.maxRows);
  overlay.content.append(panel.element);
  const draw = (): void => {
    panel.render(filter);
    const choices = panel.choices();
    overlay.offer('character', choices.character, filter.character);
    overlay.offer('tool', choices.tool, filter.tool);
  };
  const frames = new FrameBatch(settings.schedule, () => {
    if (isOpen && bound !== undefined) draw();
  });

  const bind = (capsule: Capsule | undefined): void => {
    if (disposed || capsule === bound?.capsule) return;
    bound?.stop();
    bound = undefined;
    frames.cancel();
    const live = capsule !== undefined && !capsule.disposed;
    overlay.showBound(live);
    if (!live) {
      panel.show(undefined);
      return measure();
    }
    const now = options.now ?? (() => capsule.clock.now());
    // Redraw requests are dropped while closed: opening draws at once.
    const record = new InspectorRecord(capsule, settings, now, () => {
      if (isOpen) frames.request();
    });
    // Sessions closed first, then this: the record has their end, and the panel goes.
    const offDispose = capsule.on('dispose', () => (holder === undefined ? inspector.dispose() : bind(undefined)));
    bound = {
      capsule,
      record,
      stop: () => {
        record.stop();
        offDispose();
      },
    };
    panel.show({ capsule, record, now });
    if (isOpen) draw();
    measure();
  };

  const style = addStyle(doc);
  let room: Room = { left: 0, right: 0 };
  /** Publishes the room the panel takes now, when it changed. */
  const measure = (): void => {
    if (disposed) return;
    const next = measureRoom(overlay.body, dock, isOpen && bound !== undefined);
    if (sameRoom(next, room)) return;
    room = next;
    style.setRoom(room);
  };

  const setOpen = (open: boolean): void => {
    if (disposed) return;
    isOpen = open;
    overlay.showOpen(open);
    frames.cancel();
    if (open && bound !== undefined) draw();
    measure();
  };
  const dockTo = (to: Dock): void => {
    if (!DOCKS.includes(to)) throw new CapsuleError('AICC_INVALID_OPTION', `inspector.dockTo: expected one of ${DOCKS.join(', ')}, got ${String(to)}`);
    dock = to;
    overlay.showDock(to);
    measure();
  };
  const setFilter = (next: Partial<InspectorFilter>): void => {
    for (const name of ['character', 'tool'] as const) {
      const value = next[name];
      if (value !== undefined && value !== null && typeof value !== 'string')
        throw new CapsuleError('AICC_INVALID_OPTION', `inspector.setFilter: expected ${name} to be a string or null, got ${String(value)}`);
      if (value !== undefined) filter[name] = value === '' ? null : value;
    }
    if (isOpen && bound !== undefined && !disposed) draw();
  };

  const onClick = (): void => setOpen(!isOpen);
  const onKey = (event: KeyboardEvent): void => {
    if (settings.key === null || event.key !== settings.key || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isEditable(event.target)) return;
    event.preventDefault();
    setOpen(!isOpen);
  };
  const onFilter = (name: FilterName) => (): void => setFilter({ [name]: overlay.filters[name].value });
  const onCharacter = onFilter('character');
  const onTool = onFilter('tool');
  const onDock = (): void => dockTo(overlay.dock.value as Dock);
  overlay.button.addEventListener('click', onClick);
  overlay.filters.character.addEventListener('change', onCharacter);
  overlay.filters.tool.addEventListener('change', onTool);
  overlay.dock.addEventListener('change', onDock);
  if (settings.key !== null) doc.addEventListener('keydown', onKey);
  const view = doc.defaultView;
  view?.addEventListener('resize', measure);

  overlay.showOpen(isOpen);
  overlay.showDock(dock);
  settings.parent.append(overlay.root);

  const inspector: Inspector = {
    element: overlay.root,
    get isOpen() {
      return isOpen;
    },
    get capsule() {
      return bound?.capsule;
    },
    get dock() {
      return dock;
    },
    get filter() {
      return { ...filter };
    },
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!isOpen),
    dockTo,
    setFilter,
    decision(character, cost) {
      if (typeof character !== 'string' || character === '' || cost === null || typeof cost !== 'object') {
        throw new CapsuleError('AICC_INVALID_OPTION', "inspector.decision: expected a character's name and a pilot's decision record (pilot.on('cost', …))");
      }
      bound?.record.decision({ character, cost });
    },
    dispose() {
      if (disposed) return;
      bind(undefined);
      disposed = true;
      unfollow?.();
      overlay.button.removeEventListener('click', onClick);
      overlay.filters.character.removeEventListener('change', onCharacter);
      overlay.filters.tool.removeEventListener('change', onTool);
      overlay.dock.removeEventListener('change', onDock);
      doc.removeEventListener('keydown', onKey);
      view?.removeEventListener('resize', measure);
      overlay.root.remove();
      style.remove();
    },
  };

  const holder = isHolder(target) ? target : undefined;
  // A holder calls back at once with the capsule it holds: everything above is ready for it.
  const unfollow = holder === undefined ? (bind(target as Capsule), undefined) : (overlay.showBound(false), holder.onCapsule(bind));
  measure();
  return inspector;
}

interface Settings {
  parent: HTMLElement;
  maxRows: number;
  callsPerCharacter: number;
  key: string | null;
  dock: Dock;
  schedule: FrameScheduler;
}

function isHolder(target: Capsule | CapsuleHolder): target is CapsuleHolder {
  return typeof (target as Partial<Capsule>).on !== 'function' && typeof (target as Partial<CapsuleHolder>).onCapsule === 'function';
}

function checkOptions(target: Capsule | CapsuleHolder, options: InspectorOptions): Settings {
  const fail = (what: string, code: CapsuleErrorCode = 'AICC_INVALID_OPTION'): never => {
    throw new CapsuleError(code, `mountInspector: ${what}`);
  };
  const isObject = target !== null && typeof target === 'object';
  if (!isObject || (typeof (target as Partial<Capsule>).on !== 'function' && !isHolder(target))) {
    fail('the first argument must be a Capsule (from createCapsule) or a holder of capsules with onCapsule (the Phaser plugin, this.aicc)');
  }
  if (!isHolder(target) && (target as Capsule).disposed === true) fail('this capsule was disposed; mount the inspector on a live one', 'AICC_DISPOSED');
  const parent = options.parent ?? (typeof document === 'undefined' ? undefined : document.body);
  if (parent === undefined || parent === null) fail('no document body to mount in; pass options.parent, or mount in a browser page once <body> exists');
  if (typeof parent!.append !== 'function' || parent!.ownerDocument === null) fail('options.parent must be an element of a document');
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const callsPerCharacter = options.callsPerCharacter ?? DEFAULT_CALLS_PER_CHARACTER;
  for (const [name, value] of [
    ['maxRows', maxRows],
    ['callsPerCharacter', callsPerCharacter],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_ROWS_LIMIT)
      fail(`expected ${name} to be an integer from 1 to ${MAX_ROWS_LIMIT}, got ${String(value)}`);
  }
  const key = options.key === undefined ? DEFAULT_TOGGLE_KEY : options.key;
  if (key !== null && (typeof key !== 'string' || key.length === 0)) fail(`expected key to be a KeyboardEvent.key string or null, got ${String(key)}`);
  const dock = options.dock ?? DEFAULT_DOCK;
  if (!DOCKS.includes(dock)) fail(`expected dock to be one of ${DOCKS.join(', ')}, got ${String(dock)}`);
  if (options.now !== undefined && typeof options.now !== 'function') fail('options.now must be a function returning milliseconds');
  if (options.schedule !== undefined && typeof options.schedule !== 'function') fail('options.schedule must be a function (callback) => cancel');
  return { parent: parent!, maxRows, callsPerCharacter, key, dock, schedule: options.schedule ?? animationFrames() };
}

/** Typing a backquote into a field must not toggle the panel. */
function isEditable(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (element === null || typeof element.tagName !== 'string') return false;
  return element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName);
}
