/**
 * Normalizes a text of the map so the digest does not depend on the editor: one newline style,
 * Unicode NFC, no byte-order mark, no blank space at either end (`|` and `|-` in YAML give the same text).
 */
export function cleanText(text: string | null | undefined): string {
  if (!text) return '';
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .normalize('NFC')
    .trim();
}
