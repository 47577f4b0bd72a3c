// The room the open panel takes on its side of the page, so the page can lay its game out beside it
// instead of under it: measured whenever the panel opens, closes, moves or the window is resized,
// and published as custom properties on the document's root (style.ts), which a page reads with
// `#game { margin-right: var(--aicc-inspector-right, 0px) }`. Closed, it is only a button: no room.

import type { Dock } from './overlay.js';
import type { Room } from './style.js';

/** Px kept free between the panel and what the page lays out beside it. */
export const ROOM_GAP_PX = 8;

const NONE: Room = { left: 0, right: 0 };

/**
 * The width from the panel's side of the viewport to the far edge of `panel`, plus ROOM_GAP_PX;
 * none while the panel is not shown (closed, or no capsule to show) or not laid out.
 */
export function measureRoom(panel: HTMLElement, dock: Dock, shown: boolean): Room {
  if (!shown) return NONE;
  const rect = panel.getBoundingClientRect();
  if (rect.width === 0 && rect.height === 0) return NONE;
  if (dock.endsWith('left')) return { left: Math.ceil(rect.right + ROOM_GAP_PX), right: 0 };
  const viewport = panel.ownerDocument.documentElement.clientWidth;
  return { left: 0, right: Math.max(0, Math.ceil(viewport - rect.left + ROOM_GAP_PX)) };
}

/** Whether two rooms are the same: the sheet is rewritten only when the room changed. */
export function sameRoom(a: Room, b: Room): boolean {
  return a.left === b.left && a.right === b.right;
}
