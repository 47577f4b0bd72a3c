// Text a peer supplied (a tool name, a field name, a reason) is quoted back in refusals and logs
// only this far: a name of 200 KiB must not become a refusal of 200 KiB.

/** Longest peer-supplied name quoted in a message. */
export const MAX_QUOTED_NAME = 64;
/** Longest message of a refusal (`error.message`). */
export const MAX_REFUSAL_MESSAGE = 512;

/** `text` cut to at most `max` UTF-16 units, never inside a surrogate pair, with "…" when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last < 0xdc00) end--;
  return `${text.slice(0, end)}…`;
}
