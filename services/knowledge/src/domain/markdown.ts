/** Markdown helpers of notes: title from the first # H1, outline, sections, wiki links. */
import { Lexer } from 'marked';

const WIKI = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g;

/** A `#` heading of a note: its level, its text, and its line (an index into `body.split('\n')`). */
interface Heading {
  level: number;
  text: string;
  line: number;
}

/**
 * The body's `#` headings as Markdown reads them (marked's lexer): only at the top level, so a
 * `#` line inside a fenced or indented code block, a quote, a list or an HTML block is none.
 * Setext headings (a line underlined with `===`) are not titles: spec 004 names the `# H1`.
 */
function headings(body: string): Heading[] {
  const out: Heading[] = [];
  // Without CR the lexer's lines are exactly those of body.split('\n') (it reads a lone CR as a line end).
  let line = 0;
  for (const token of Lexer.lex(body.replace(/\r/g, ''))) {
    if (token.type === 'heading' && token.raw.trimStart().startsWith('#')) {
      out.push({ level: token.depth as number, text: String(token.text).trim(), line });
    }
    for (const c of token.raw) if (c === '\n') line++;
  }
  return out;
}

const firstH1 = (body: string) => headings(body).find((h) => h.level === 1);

/** The title a body gives: its first `# H1`, or null. */
export function titleOf(body: string): string | null {
  return firstH1(body)?.text || null;
}

/** The body with its first H1 set to `title` (prepended when there is none). */
export function withTitle(body: string, title: string): string {
  const h1 = firstH1(body);
  if (!h1) return `# ${title}\n\n${body}`;
  const lines = body.split('\n');
  lines[h1.line] = `# ${title}`;
  return lines.join('\n');
}

/** Headings in order (none inside code, quotes or lists). */
export function outline(body: string): Array<{ level: number; heading: string }> {
  return headings(body).map((h) => ({ level: h.level, heading: h.text }));
}

/** Distinct [[wiki link]] targets of a body, in order of appearance. */
export function wikiLinks(body: string): string[] {
  const seen = new Map<string, string>();
  for (const m of body.matchAll(WIKI)) {
    const t = m[1].trim();
    if (t && !seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
  }
  return [...seen.values()];
}

/** A normalised key of a title for lookups and unique checks. */
export function titleKey(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** An edit of edit_note, or the reason it cannot apply. */
export type EditResult =
  | { ok: true; body: string }
  | { ok: false; code: 'sectionNotFound' | 'snippetNotFound' | 'snippetNotUnique' | 'unknownEditMode'; count?: number };

export const EDIT_MODES = ['append', 'prepend', 'replace', 'replaceSection', 'findReplace'] as const;

/**
 * Applies an edit by words, not positions. prepend goes after the H1 line so the title stays
 * first; replaceSection replaces the lines under the heading up to the next heading of the same
 * or a higher level; findReplace needs the snippet exactly once, and empty content deletes it.
 */
export function applyEdit(body: string, mode: string, content: string, heading?: string, find?: string): EditResult {
  switch (mode) {
    case 'append':
      return { ok: true, body: `${body.replace(/\s+$/, '')}\n\n${content}\n` };
    case 'prepend': {
      const h1 = firstH1(body);
      if (!h1) return { ok: true, body: `${content}\n\n${body}` };
      const lines = body.split('\n');
      return { ok: true, body: [...lines.slice(0, h1.line + 1), '', content, ...lines.slice(h1.line + 1)].join('\n') };
    }
    case 'replace':
      return { ok: true, body: content };
    case 'replaceSection':
      return replaceSection(body, heading ?? '', content);
    case 'findReplace': {
      if (!find) return { ok: false, code: 'snippetNotFound', count: 0 };
      const count = body.split(find).length - 1;
      if (count === 0) return { ok: false, code: 'snippetNotFound', count };
      if (count > 1) return { ok: false, code: 'snippetNotUnique', count };
      return { ok: true, body: body.replace(find, () => content) };
    }
    default:
      return { ok: false, code: 'unknownEditMode' };
  }
}

function replaceSection(body: string, heading: string, content: string): EditResult {
  const want = heading
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase();
  const all = headings(body);
  const at = all.findIndex((h) => h.text.toLowerCase() === want);
  if (at < 0 || !want) return { ok: false, code: 'sectionNotFound' };
  const { line: start, level } = all[at] as Heading;
  const lines = body.split('\n');
  const end = all.slice(at + 1).find((h) => h.level <= level)?.line ?? lines.length;
  const tail = lines.slice(end);
  const next = [...lines.slice(0, start + 1), content.replace(/\s+$/, ''), ...(tail.length ? ['', ...tail] : [])];
  return { ok: true, body: next.join('\n') };
}
