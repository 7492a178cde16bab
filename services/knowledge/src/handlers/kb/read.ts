import { get_note, ok, recall, search } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { outline } from '../../domain/markdown.ts';
import { estimateTokens } from '../../domain/ranking.ts';
import { type Kb, projectOf, visibleTo } from '../../kb.ts';
import { ambiguousRef, emptyText, noteNotFound, projectNotFound } from '../../refusals.ts';
import { LinkRepository, linkView } from '../../repositories/link.repository.ts';
import { isUuid, NoteRepository, type NoteRow } from '../../repositories/note.repository.ts';
import { hit, rank } from '../../search.ts';
import { versionToken } from '../../writer.ts';

/** search: ranked snippets with score and path, shared knowledge and the caller's memory. */
export function searchHandler(kb: Kb) {
  return endpoint(search, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    const query = args.query.trim();
    if (!query) return emptyText('query');
    let projects = await kb.access.projects(p);
    if (args.project !== undefined) {
      const project = await kb.access.project(p, args.project);
      if (!project) return projectNotFound(args.project);
      projects = [project];
    }
    const limit = Math.min(50, Math.max(1, args.limit ?? 10));
    const { ranked, modes } = await rank(kb, p, query, projects, limit);
    return ok({ results: ranked.map((r) => hit(r, query)), modes });
  });
}

/** get_note: by id or [[wiki ref]] (former titles resolve); detailed adds outline and links both ways. */
export function getNoteHandler(kb: Kb) {
  return endpoint(get_note, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    let projects = await kb.access.projects(p);
    if (args.project !== undefined) {
      const project = await kb.access.project(p, args.project);
      if (!project) return projectNotFound(args.project);
      projects = [project];
    }
    const visible = visibleTo(p, await kb.access.projects(p));
    const repo = new NoteRepository(kb.db);
    const ref = args.ref.trim();
    let note: NoteRow | undefined;
    if (isUuid(ref)) {
      const n = await repo.get(ref);
      if (n && !n.deleted_at && visible(n)) note = n;
    } else {
      const title = ref.replace(/^\[\[/, '').replace(/\]\]$/, '').split('|')[0].trim();
      const found: NoteRow[] = [];
      for (const project of projects) {
        const n = title ? await repo.resolveTitle(project.id, title) : undefined;
        if (n) found.push(n);
      }
      if (found.length > 1) {
        return ambiguousRef(
          ref,
          found.map((n) => ({ id: n.id, project: projectOf(n, projects)?.handle ?? null })),
        );
      }
      note = found[0];
    }
    if (!note) return noteNotFound(ref);
    const all = await kb.access.projects(p);
    const base = {
      id: note.id,
      title: note.title,
      content: note.body,
      frontmatter: note.frontmatter,
      path: note.folder,
      project: projectOf(note, all)?.handle ?? null,
      class: note.class,
      versionToken: versionToken(note),
      origin: {
        created_by: { user: note.created_by, kind: note.created_kind as 'agent' },
        created_at: note.created_at,
        updated_by: { user: note.updated_by, kind: note.updated_kind as 'agent' },
        updated_at: note.updated_at,
      },
      aliases: await repo.aliases(note.id),
      trust: 'untrusted' as const,
    };
    if (!args.detailed) return ok(base);
    const links = new LinkRepository(kb.db);
    return ok({
      ...base,
      outline: outline(note.body),
      links: {
        outgoing: (await links.outgoing(note.id)).map(linkView),
        incoming: (await links.incoming(note.id)).map(linkView),
      },
    });
  });
}

/**
 * recall: the best matches of the topic and their graph neighbours (links both ways, up to
 * `depth`, each note once), by relevance — a neighbour weighs half its parent per step — packed
 * greedily: an item that does not fit is cut to the room left (at least 40 tokens) or skipped, and
 * the whole reply never exceeds budgetTokens (envelope and items counted as the JSON they are sent as).
 */
export function recallHandler(kb: Kb) {
  return endpoint(recall, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    const topic = args.topic.trim();
    if (!topic) return emptyText('topic');
    let projects = await kb.access.projects(p);
    if (args.project !== undefined) {
      const project = await kb.access.project(p, args.project);
      if (!project) return projectNotFound(args.project);
      projects = [project];
    }
    // The contract refuses numbers out of range (invalid_arguments names the field and the range).
    const budget = args.budgetTokens ?? 2000;
    const depth = args.depth ?? 1;
    const { ranked } = await rank(kb, p, topic, projects, 8);
    const visible = visibleTo(p, projects);
    type Cand = { note: NoteRow; score: number; relation: 'match' | 'neighbour'; via: string | null };
    const cands = new Map<string, Cand>();
    for (const r of ranked) cands.set(r.note.id, { note: r.note, score: r.score, relation: 'match', via: null });
    let frontier = ranked.map((r) => r.note.id);
    const repo = new NoteRepository(kb.db);
    const links = new LinkRepository(kb.db);
    for (let d = 1; d <= depth && frontier.length; d++) {
      const edges = await links.neighbours(frontier);
      const pairs = edges.map((e) => (frontier.includes(e.from) ? [e.from, e.to] : [e.to, e.from]));
      const fetched = new Map(
        (await repo.many(pairs.map(([, dst]) => dst).filter((id) => !cands.has(id)))).map((n) => [n.id, n]),
      );
      const next: string[] = [];
      for (const [src, dst] of pairs) {
        if (cands.has(dst)) continue;
        const n = fetched.get(dst);
        if (!n || n.deleted_at || !visible(n)) continue;
        cands.set(dst, { note: n, score: (cands.get(src)?.score ?? 0) / 2, relation: 'neighbour', via: src });
        next.push(dst);
      }
      frontier = next;
    }
    const order = [...cands.values()].sort((a, b) => b.score - a.score || a.note.id.localeCompare(b.note.id));
    const items = [];
    // The budget covers the whole reply: its envelope (topic, counters, trust) is counted first,
    // with the widest values it can take; each item then costs its JSON and the comma before it.
    const shown = topic.length > TOPIC_ECHO ? `${topic.slice(0, TOPIC_ECHO)}…` : topic;
    const envelope = <T>(used: number, truncated: boolean, list: T[]) => ({
      topic: shown,
      budgetTokens: budget,
      usedTokens: used,
      truncated,
      items: list,
      trust: 'untrusted' as const,
    });
    let used = estimateTokens(JSON.stringify(envelope(99_999, false, [])));
    let truncated = false;
    for (const c of order) {
      const item = {
        id: c.note.id,
        title: c.note.title,
        path: c.note.folder,
        project: projectOf(c.note, projects)?.handle ?? null,
        class: c.note.class,
        relation: c.relation,
        via: c.via,
        score: Math.round(c.score * 10_000) / 10_000,
        content: c.note.body,
        cut: false,
        tokens: 0,
      };
      const cost = (x: typeof item) => estimateTokens(JSON.stringify({ ...x, tokens: 99_999 }));
      if (used + cost(item) + 1 > budget) {
        truncated = true;
        const room = budget - used - 1 - cost({ ...item, content: '' });
        if (room < 40) continue;
        item.content = cutToTokens(item.content, room);
        item.cut = true;
        while (item.content && used + cost(item) + 1 > budget) item.content = item.content.slice(0, -16);
        if (!item.content) continue;
      }
      item.tokens = cost(item);
      used += item.tokens + 1;
      items.push(item);
    }
    return ok(envelope(used, truncated, items));
  });
}

/** Characters of the topic recall's reply echoes (a long question must not eat a small budget). */
const TOPIC_ECHO = 200;

/** Text cut to about `tokens` tokens at a word boundary, marked with an ellipsis. */
function cutToTokens(text: string, tokens: number): string {
  const max = Math.max(0, tokens * 4 - 8);
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return `${sp > max / 2 ? cut.slice(0, sp) : cut}…`;
}
