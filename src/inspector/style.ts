// The panel's look, scoped to its root attribute so it touches nothing else on the page. Injected
// as one <style> per mounted inspector and removed with it: the library ships no CSS files.

export const ROOT_ATTRIBUTE = 'data-aicc-inspector';

const S = `[${ROOT_ATTRIBUTE}]`;

export const INSPECTOR_CSS = `
${S}{position:fixed;right:8px;bottom:8px;z-index:2147483000;font:11px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#e6e6e6;text-align:left}
${S} *{box-sizing:border-box}
${S} [data-aicc-toggle]{display:block;margin-left:auto;padding:3px 8px;border:1px solid #555;border-radius:4px;background:#1d1f24;color:#e6e6e6;font:inherit;cursor:pointer}
${S} [data-aicc-panel]{width:min(560px,calc(100vw - 16px));max-height:min(70vh,640px);overflow:auto;margin-bottom:4px;padding:6px 8px;border:1px solid #555;border-radius:4px;background:rgba(20,22,27,.94)}
${S} [data-aicc-panel][hidden]{display:none}
${S} h3{margin:8px 0 2px;font-size:11px;font-weight:600;color:#9ecbff}
${S} h3:first-of-type{margin-top:2px}
${S} [data-aicc-header]{color:#bbb}
${S} [data-aicc-list]>div{display:flex;gap:6px;padding:1px 0;border-bottom:1px solid #2a2d33;white-space:nowrap}
${S} [data-aicc-list]>div>span{overflow:hidden;text-overflow:ellipsis}
${S} [data-aicc-list]>div>span:last-child{flex:1}
${S} [data-aicc-empty]{color:#777}
${S} [data-ok="true"] [data-cell="result"]{color:#8fd18f}
${S} [data-ok="false"] [data-cell="result"],${S} [data-kind$="_error"] [data-cell="label"]{color:#ff8f8f}
${S} [data-state="running"] [data-cell="result"],${S} [data-state="unanswered"] [data-cell="result"]{color:#e0c060}
${S} [data-cell="dim"]{color:#888}
`;
