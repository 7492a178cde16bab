import { Marked } from 'marked';
import markedKatex from 'marked-katex-extension';

const marked = new Marked(
  { gfm: true, breaks: false, async: false },
  // Formulas as the assistant writes them: $…$ inline, $$…$$ as a block; a bad formula shows as red text.
  markedKatex({ throwOnError: false, nonStandard: true, output: 'htmlAndMathml' }),
);

/**
 * Closes what a half-written answer leaves open, so it renders while it streams: an unclosed code
 * fence is closed, and an unclosed formula is held back as plain text until its closing dollar
 * arrives (otherwise KaTeX would draw half a formula in red on every piece).
 */
export function closeOpen(text: string): { text: string; pending: string } {
  const fences = text.match(/^```/gm)?.length ?? 0;
  if (fences % 2 === 1) return { text: `${text}\n\`\`\``, pending: '' };
  // Outside code, count the dollar signs that are not escaped: an odd number means a formula is open.
  const lastBlock = text.lastIndexOf('$$');
  const blockCount = text.split('$$').length - 1;
  if (blockCount % 2 === 1) return { text: text.slice(0, lastBlock), pending: text.slice(lastBlock) };
  const line = text.slice(text.lastIndexOf('\n') + 1).replaceAll('$$', '');
  const singles = line.match(/(?<!\\)\$/g)?.length ?? 0;
  if (singles % 2 === 1) {
    const at = text.lastIndexOf('$');
    return { text: text.slice(0, at), pending: text.slice(at) };
  }
  return { text, pending: '' };
}

/** Markdown with KaTeX formulas to HTML (not yet sanitized: see {@link renderAnswer}). */
export function markdownToHtml(text: string, streaming: boolean): string {
  if (!streaming) return marked.parse(text) as string;
  const { text: closed, pending } = closeOpen(text);
  const html = marked.parse(closed) as string;
  return pending ? `${html}<span class="pending">${escapeHtml(pending)}</span>` : html;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
