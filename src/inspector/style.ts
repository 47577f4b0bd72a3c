// The overlay's look, scoped to its root attribute so it touches nothing else on the page. Added per
// mounted inspector and removed with it (addStyle): the library ships no CSS files, and no element
// gets a style attribute (dock, open state and the rest are attributes the sheet keys on).
//
// Out of the game's way: docked in a corner it is at most half the page wide and half high, its
// empty parts let clicks through to the game, and closed it is one button. Containment keeps a
// redraw cheap on a busy page: each list scrolls on its own and is its own layout root, rows have a
// fixed height and strict containment (an opened call row grows), and rows scrolled out of view are
// skipped by the browser (content-visibility). Columns are one grid template per section, shared
// by its header row and its rows. The sheet also carries the room the open panel takes
// (ROOM_PROPERTIES on :root, room.ts), for a page that lays its game out beside the panel.

export const ROOT_ATTRIBUTE = 'data-aicc-inspector';

const S = `[${ROOT_ATTRIBUTE}]`;
const ROW_PX = 17;
/** The selector of `inner` in an overlay docked to a whole side. */
const side = (inner = ''): string => `${S}[data-dock="right"]${inner},${S}[data-dock="left"]${inner}`;

export const INSPECTOR_CSS = `
${S}{position:fixed;z-index:2147483000;display:flex;flex-direction:column;align-items:flex-end;gap:4px;pointer-events:none;font:11px/16px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#e6e6e6;text-align:left}
${S}[hidden],${S} [data-aicc-panel][hidden]{display:none}
${S}[data-dock$="right"]{right:8px}
${S}[data-dock$="left"]{left:8px;align-items:flex-start}
${S}[data-dock^="bottom"]{bottom:8px}
${S}[data-dock^="top"],${side()}{top:8px;flex-direction:column-reverse}
${side()}{bottom:8px}
${S} [data-aicc-toggle]{pointer-events:auto;padding:3px 8px;border:1px solid #555;border-radius:4px;background:#1d1f24;color:#e6e6e6;font:inherit;cursor:pointer}
${S} [data-aicc-panel]{pointer-events:auto;box-sizing:border-box;width:min(460px,calc(50vw - 16px));min-width:min(300px,calc(100vw - 16px));max-height:min(50vh,440px);overflow:auto;padding:4px 8px;border:1px solid #555;border-radius:4px;background:rgba(20,22,27,.94);contain:content}
${side(' [data-aicc-panel]')}{width:min(400px,calc(40vw - 16px));max-height:none;flex:1 1 auto;min-height:0}
${S} [data-aicc-controls]{display:flex;flex-wrap:wrap;gap:4px;margin-bottom:2px}
${S} [data-aicc-filter]{max-width:16ch}
${S} select{font:inherit;color:inherit;background:#1d1f24;border:1px solid #555;border-radius:3px}
${S} [data-aicc-header]{color:#bbb}
${S} details{margin-top:4px}
${S} summary{cursor:pointer;font-weight:600;color:#9ecbff}
${S} [data-aicc-section="sessions"]{--aicc-cols:8ch 10ch 11ch 8ch 12ch minmax(0,1fr)}
${S} [data-aicc-section="manifest"]{--aicc-cols:12ch 8ch 11ch 12ch minmax(0,1fr)}
${S} [data-aicc-section="calls"]{--aicc-cols:10ch 9ch 10ch 7ch minmax(0,1fr) minmax(0,1fr)}
${S} [data-aicc-section="quota"]{--aicc-cols:10ch 11ch minmax(0,1fr) minmax(0,1fr)}
${S} [data-aicc-section="events"]{--aicc-cols:5ch 12ch minmax(0,1fr)}
${S} [data-aicc-columns],${S} [data-aicc-list]>div:not([data-aicc-empty]){display:grid;grid-template-columns:var(--aicc-cols);column-gap:6px}
${S} [data-aicc-columns]{color:#888;border-bottom:1px solid #444}
${S} [data-cell]{overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
${S} [data-aicc-list]{max-height:${6 * ROW_PX}px;overflow:auto;contain:content}
${S} [data-aicc-list="calls"],${S} [data-aicc-list="events"]{height:${6 * ROW_PX}px;max-height:none;contain:strict}
${side(' [data-aicc-list="calls"]')},${side(' [data-aicc-list="events"]')}{height:${14 * ROW_PX}px}
${S} [data-aicc-list]>div{height:${ROW_PX}px;overflow:hidden;border-bottom:1px solid #2a2d33;contain:strict;content-visibility:auto;contain-intrinsic-size:auto ${ROW_PX}px}
${S} [data-aicc-call]{cursor:pointer}
${S} [data-aicc-call]:focus{outline:1px solid #9ecbff;outline-offset:-1px}
${S} [data-aicc-list]>[aria-expanded="true"]{height:auto;contain:content;content-visibility:visible;background:#23262d}
${S} [data-aicc-detail]{grid-column:1/-1;display:grid;grid-template-columns:8ch minmax(0,1fr);column-gap:6px;margin:2px 0 4px;cursor:text;user-select:text}
${S} [data-aicc-detail] dt{color:#888}
${S} [data-aicc-detail] dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
${S} [data-aicc-empty]{color:#777}
${S} [data-ok="true"] [data-cell="result"]{color:#8fd18f}
${S} [data-ok="false"] [data-cell="result"],${S} [data-kind$="_error"] [data-cell="event"]{color:#ff8f8f}
${S} [data-state="running"] [data-cell="result"],${S} [data-state="unanswered"] [data-cell="result"]{color:#e0c060}
${S} [data-aicc-list] [data-cell="tick"],${S} [data-aicc-list] [data-cell="calls"],${S} [data-aicc-list] [data-cell="limits"]{color:#888}
`;

/** The custom properties on the document's root that say how wide the open panel covers each side. */
export const ROOM_PROPERTIES = { left: '--aicc-inspector-left', right: '--aicc-inspector-right' } as const;

/** Px from each edge of the viewport that the open panel covers (0: none). */
export interface Room {
  left: number;
  right: number;
}

export interface InspectorStyle {
  /** Publishes the room the panel takes, as ROOM_PROPERTIES on `:root` (a side of 0 is left unset). */
  setRoom(room: Room): void;
  remove(): void;
}

/**
 * Puts the sheet in `doc`; returns what changes the room it publishes and takes it out again. Where
 * the browser has constructable stylesheets, an adopted one: CSP does not govern those, so a page
 * whose policy allows no inline style (`style-src 'self'`) still shows the panel styled. Elsewhere
 * one <style data-aicc-inspector-style>.
 */
export function addStyle(doc: Document): InspectorStyle {
  const css = (room: Room): string => {
    const sides = (['left', 'right'] as const).filter((side) => room[side] > 0).map((side) => `${ROOM_PROPERTIES[side]}:${room[side]}px`);
    return sides.length === 0 ? INSPECTOR_CSS : `${INSPECTOR_CSS}:root{${sides.join(';')}}\n`;
  };
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (typeof Sheet === 'function' && Array.isArray(doc.adoptedStyleSheets)) {
    const sheet = new Sheet();
    sheet.replaceSync(INSPECTOR_CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    return {
      setRoom: (room) => sheet.replaceSync(css(room)),
      remove: () => {
        doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((adopted) => adopted !== sheet);
      },
    };
  }
  const style = doc.createElement('style');
  style.setAttribute('data-aicc-inspector-style', '');
  style.textContent = INSPECTOR_CSS;
  (doc.head ?? doc.documentElement).append(style);
  return {
    setRoom: (room) => {
      style.textContent = css(room);
    },
    remove: () => style.remove(),
  };
}
