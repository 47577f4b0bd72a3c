// The line a demo page shows over its game when something is wrong — pi could not connect, a
// character stands idle, the page hit an error — so a visitor sees it without opening the console.
// Each problem has a key (a character's pilot, say) and is replaced or cleared under it; the page's
// `#status` element shows them, one a line, and is hidden while there is none.

/** The most lines shown at once; older problems give way to newer ones. */
const MAX_LINES = 4;

const lines = new Map<string, string>();

/** Shows `text` under `key` on the page, replacing what was there; undefined clears it. */
export function pageStatus(key: string, text: string | undefined): void {
  lines.delete(key);
  if (text !== undefined) lines.set(key, text);
  while (lines.size > MAX_LINES) lines.delete(lines.keys().next().value!);
  draw();
}

function draw(): void {
  let element = document.getElementById('status');
  if (element === null) {
    if (lines.size === 0) return;
    element = document.createElement('div');
    element.id = 'status';
    element.setAttribute('role', 'alert');
    document.body.append(element);
  }
  element.replaceChildren(
    ...[...lines.values()].map((text) => {
      const line = document.createElement('div');
      line.textContent = text;
      return line;
    }),
  );
  element.hidden = lines.size === 0;
}
