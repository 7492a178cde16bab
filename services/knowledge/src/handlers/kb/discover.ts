import { list_notes, ok, recent_activity } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { sql } from 'kysely';
import { normalisePath } from '../../domain/paths.ts';
import type { Kb } from '../../kb.ts';
import { invalidPath, projectNotFound } from '../../refusals.ts';
import { ActivityRepository } from '../../repositories/activity.repository.ts';
import { activityView } from './views.ts';

function clamp(v: number | undefined, min: number, max: number, dflt: number) {
  return v === undefined ? dflt : Math.min(max, Math.max(min, v));
}

function encodeCursor(title: string, id: string) {
  return Buffer.from(JSON.stringify([title, id])).toString('base64url');
}

function decodeCursor(c: string): [string, string] | null {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString());
    return Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

/** list_notes: a folder's direct notes (by title, then id) and its subfolders; keyset pages. */
export function listNotesHandler(kb: Kb) {
  return endpoint(list_notes, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    const folder = normalisePath(args.path);
    if (folder === null) return invalidPath(args.path ?? '');
    const limit = clamp(args.limit, 1, 200, 50);
    const after = args.cursor ? decodeCursor(args.cursor) : null;
    let q = kb.db
      .selectFrom('notes')
      .select(['id', 'title', 'folder', 'tags', 'updated_at', sql<string>`lower(title)`.as('sort')])
      .where('project', '=', project.id)
      .where('class', '=', 'user-doc')
      .where('deleted_at', 'is', null)
      .where('folder', '=', folder)
      .orderBy(sql`lower(title)`)
      .orderBy('id')
      .limit(limit + 1);
    if (args.tag) q = q.where(sql<boolean>`${args.tag} = any(tags)`);
    if (after) q = q.where(sql<boolean>`(lower(title), id) > (${after[0]}, ${after[1]}::uuid)`);
    const rows = await q.execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const prefix = folder ? `${folder}/` : '';
    const sub = await sql<{ name: string }>`
      select distinct split_part(substr(folder, ${prefix.length + 1}), '/', 1) as name from notes
      where project = ${project.id} and class = 'user-doc' and deleted_at is null
        and folder like ${`${prefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`} and folder <> ${folder}
      order by 1`.execute(kb.db);
    return ok({
      project: project.handle,
      path: folder,
      folders: sub.rows.map((r) => (prefix ? `${prefix}${r.name}` : r.name)),
      notes: page.map((n) => ({ id: n.id, title: n.title, path: n.folder, tags: n.tags, updated_at: n.updated_at })),
      next_cursor: rows.length > limit && last ? encodeCursor(last.sort, last.id) : null,
    });
  });
}

/** recent_activity: the latest changes of shared notes, who (person or agent), how, where, when. */
export function recentActivityHandler(kb: Kb) {
  return endpoint(recent_activity, async (args, ctx) => {
    const p = kb.access.principal(ctx);
    const projects = await kb.access.projects(p);
    let ids = projects.map((x) => x.id);
    if (args.project !== undefined) {
      const project = await kb.access.project(p, args.project);
      if (!project) return projectNotFound(args.project);
      ids = [project.id];
    }
    const rows = await new ActivityRepository(kb.db).latest(ids, null, clamp(args.limit, 1, 100, 20));
    return ok({ items: rows.map((r) => activityView(r, projects)) });
  });
}
