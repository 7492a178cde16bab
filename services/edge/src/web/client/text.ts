// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * A name someone else chose (a file's, a client's), as a page shows it: without control or bidi
 * characters. The services keep names clean already (cleanFileName); this is the page's own guard
 * for anything older or from elsewhere. Shown inside <bdi>, so it cannot reorder the text around it.
 */
export function plainName(name: string): string {
  return name.replace(HIDDEN, '');
}
