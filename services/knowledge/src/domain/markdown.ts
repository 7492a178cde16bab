/** Markdown helpers of notes: title from the first # H1, outline, sections, wiki links. */

const H1 = /^#\s+(.+?)\s*#*\s*$/;
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const WIKI = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g;

/** The title a body gives: its first `# H1` line, or null. */
export function titleOf(body: string): string | null {
  for (const line of body.split('\n')) {
    const m = H1.exec(line);
    if (m) return m[1].trim() || null;
  }
  return null;
}

/** The body with its first H1 set to `title` (prepended when there is none). */
export function withTitle(body: string, title: string): string {
  const lines = body.split('\n');
  const i = lines.findIndex((l) => H1.test(l));
  if (i < 0) return `# ${title}\n\n${body}`;
  lines[i] = `# ${title}`;
  return lines.join('\n');
}

/** Headings in order (code fences skipped). */
export function outline(body: string): Array<{ level: number; heading: string }> {
  const out: Array<{ level: number; heading: string }> = [];
  let fence = false;
  for (const line of body.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const m = HEADING.exec(line);
    if (m) out.push({ level: m[1].length, heading: m[2].trim() });
  }
  return out;
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
      const lines = body.split('\n');
      const i = lines.findIndex((l) => H1.test(l));
      if (i < 0) return { ok: true, body: `${content}\n\n${body}` };
      return { ok: true, body: [...lines.slice(0, i + 1), '', content, ...lines.slice(i + 1)].join('\n') };
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
  const lines = body.split('\n');
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const m = HEADING.exec(lines[i]);
    if (m && m[2].trim().toLowerCase() === want) {
      start = i;
      level = m[1].length;
      break;
    }
  }
  if (start < 0 || !want) return { ok: false, code: 'sectionNotFound' };
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const m = HEADING.exec(lines[i]);
    if (m && m[1].length <= level) {
      end = i;
      break;
    }
  }
  const tail = lines.slice(end);
  const next = [...lines.slice(0, start + 1), content.replace(/\s+$/, ''), ...(tail.length ? ['', ...tail] : [])];
  return { ok: true, body: next.join('\n') };
}
