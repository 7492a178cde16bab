import { describe, expect, it } from 'vitest';
import { closeOpen, markdownToHtml } from '../src/chat/web/markdown.ts';

describe('the chat page’s Markdown while an answer streams', () => {
  it('closes an open code fence', () => {
    expect(closeOpen('Код:\n```js\nconst a = 1;')).toEqual({ text: 'Код:\n```js\nconst a = 1;\n```', pending: '' });
    expect(markdownToHtml('```js\nconst a = 1;', true)).toContain('<code class="language-js">const a = 1;\n</code>');
  });

  it('holds back an open formula as plain text until it is closed', () => {
    expect(closeOpen('Площадь: $S = \\pi')).toEqual({ text: 'Площадь: ', pending: '$S = \\pi' });
    expect(closeOpen('Блок:\n$$\n\\frac{a}{')).toEqual({ text: 'Блок:\n', pending: '$$\n\\frac{a}{' });
    const open = markdownToHtml('Площадь: $S = \\pi', true);
    expect(open).not.toContain('katex-error');
    expect(open).toContain('<span class="pending">$S = \\pi</span>');
    expect(markdownToHtml('Площадь: $S = \\pi r^2$', true)).toContain('class="katex"');
  });

  it('renders inline and block formulas with KaTeX, and unclosed emphasis as text', () => {
    expect(markdownToHtml('Итак, $a^2+b^2=c^2$.', false)).toContain('class="katex"');
    expect(markdownToHtml('$$\n\\frac{1}{2}\n$$', false)).toContain('katex-display');
    expect(markdownToHtml('**жирный', true)).toContain('**жирный');
  });
});
