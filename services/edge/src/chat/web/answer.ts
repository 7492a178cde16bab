import DOMPurify from 'dompurify';
import { useMemo } from 'preact/hooks';
import { html } from './html.ts';
import { markdownToHtml } from './markdown.ts';

// Links in answers open in a new tab and tell the target nothing.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** An assistant's answer: Markdown with KaTeX formulas, sanitized (the model's text is untrusted). */
export function Answer({ text, streaming }: { text: string; streaming: boolean }) {
  const safe = useMemo(() => DOMPurify.sanitize(markdownToHtml(text, streaming)), [text, streaming]);
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: safe }}></div>`;
}
