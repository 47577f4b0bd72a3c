// Elements made from text only: every value a peer or the game supplied goes into the page as
// textContent or an attribute value, never as markup, and no element gets a style attribute (the
// look is the stylesheet's, keyed on attributes), so a strict CSP page needs nothing more.

export function el(doc: Document, tag: string, attributes: Readonly<Record<string, string>> = {}, text?: string): HTMLElement {
  const element = doc.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  return element;
}
