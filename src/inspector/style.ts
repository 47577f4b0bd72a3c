// The panel's look, scoped to its root attribute so it touches nothing else on the page. Injected
// as one <style> per mounted inspector and removed with it: the library ships no CSS files.
//
// Containment keeps a redraw cheap on a busy page: each list scrolls on its own and is its own
// layout root, rows have a fixed height and strict containment, and rows scrolled out of view are
// skipped by the browser (content-visibility).

export const ROOT_ATTRIBUTE = 'data-aicc-inspector';

const S = `[${ROOT_ATTRIBUTE}]`;
const ROW_PX = 17;

export const INSPECTOR_CSS = `
${S}{position:fixed;right:8px;bottom:8px;z-index:2147483000;font:11px/16px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#e6e6e6;text-align:left}
${S} [data-aicc-toggle]{display:block;margin-left:auto;padding:3px 8px;border:1px solid #555;border-radius:4px;background:#1d1f24;color:#e6e6e6;font:inherit;cursor:pointer}
${S} [data-aicc-panel]{box-sizing:border-box;width:min(560px,calc(100vw - 16px));max-height:min(80vh,760px);overflow:auto;margin-bottom:4px;padding:6px 8px;border:1px solid #555;border-radius:4px;background:rgba(20,22,27,.94);contain:content}
${S} [data-aicc-panel][hidden]{display:none}
${S} h3{margin:8px 0 2px;font-size:11px;font-weight:600;color:#9ecbff}
${S} [data-aicc-header]{color:#bbb}
${S} [data-aicc-list]{max-height:${8 * ROW_PX}px;overflow:auto;contain:content}
${S} [data-aicc-list="calls"],${S} [data-aicc-list="events"]{height:${8 * ROW_PX}px;contain:strict}
${S} [data-aicc-list]>div{height:${ROW_PX}px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;border-bottom:1px solid #2a2d33;contain:strict;content-visibility:auto;contain-intrinsic-size:auto ${ROW_PX}px}
${S} [data-cell]{margin-right:8px}
${S} [data-aicc-empty]{color:#777}
${S} [data-ok="true"] [data-cell="result"]{color:#8fd18f}
${S} [data-ok="false"] [data-cell="result"],${S} [data-kind$="_error"] [data-cell="label"]{color:#ff8f8f}
${S} [data-state="running"] [data-cell="result"],${S} [data-state="unanswered"] [data-cell="result"]{color:#e0c060}
${S} [data-cell="dim"]{color:#888}
`;
