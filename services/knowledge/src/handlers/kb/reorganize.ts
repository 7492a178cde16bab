import { move_folder, move_note, ok, rename_folder, rename_note, rename_project } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { sql } from 'kysely';
import { withTitle } from '../../domain/markdown.ts';
import { normalisePath, SLUG } from '../../domain/paths.ts';
import { agent, type Kb, visibleNote, visibleTo } from '../../kb.ts';
import {
  folderIntoItself,
  handleTaken,
  invalidHandle,
  invalidPath,
  noteNotFound,
  projectNotFound,
  titleMissing,
} from '../../refusals.ts';
import { ProjectRepository } from '../../repositories/project.repository.ts';

/** move_note: another folder; id, title and links stay. */
export function moveNoteHandler(kb: Kb) {
  return endpoint(move_note, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const found = await visibleNote(kb, p, args.id);
    if (found?.note.class !== 'user-doc') return noteNotFound(args.id);
    const folder = normalisePath(args.path);
    if (folder === null) return invalidPath(args.path);
    return kb.writer.change(
      args.id,
      null,
      found.project,
      (n) => ({ ok: true, title: n.title, folder, body: n.body }),
      'moved',
      agent(p),
      visibleTo(p, found.projects),
    );
  });
}

/** rename_note: a new title and H1; the old title becomes an alias. */
export function renameNoteHandler(kb: Kb) {
  return endpoint(rename_note, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const title = args.title.replace(/\s+/g, ' ').trim();
    if (!title) return titleMissing();
    const found = await visibleNote(kb, p, args.id);
    if (found?.note.class !== 'user-doc') return noteNotFound(args.id);
    return kb.writer.change(
      args.id,
      null,
      found.project,
      (n) => ({ ok: true, title, folder: n.folder, body: withTitle(n.body, title) }),
      'renamed',
      agent(p),
      visibleTo(p, found.projects),
    );
  });
}

/** move_folder: the folder with everything in it under another parent. */
export function moveFolderHandler(kb: Kb) {
  return endpoint(move_folder, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    const from = normalisePath(args.path);
    const parent = normalisePath(args.newParent);
    if (!from) return invalidPath(args.path);
    if (parent === null) return invalidPath(args.newParent);
    if (parent === from || parent.startsWith(`${from}/`)) return folderIntoItself(from, parent);
    const name = from.split('/').pop() as string;
    return kb.writer.moveFolder(project, from, parent ? `${parent}/${name}` : name, agent(p), ctx);
  });
}

/** rename_folder: the folder's last segment, in place. */
export function renameFolderHandler(kb: Kb) {
  return endpoint(rename_folder, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    const from = normalisePath(args.path);
    if (!from) return invalidPath(args.path);
    const name = args.name.trim();
    if (!name || name.includes('/') || normalisePath(name) !== name) return invalidPath(args.name);
    const parent = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
    return kb.writer.moveFolder(project, from, parent ? `${parent}/${name}` : name, agent(p), ctx);
  });
}

/** rename_project: slug and/or title; the old handle becomes an alias. */
export function renameProjectHandler(kb: Kb) {
  return endpoint(rename_project, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    const repo = new ProjectRepository(kb.db);
    const slug = args.slug === undefined ? project.slug : args.slug.trim().toLowerCase();
    const title = args.title?.trim() || project.title;
    if (slug !== project.slug) {
      if (project.slug === '' || !SLUG.test(slug)) return invalidHandle(slug, project.slug === '');
      if (await repo.handleTaken(project.space, slug, project.id)) return handleTaken(`${project.space}/${slug}`);
    }
    const saved = await kb.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`project:${project.space}`}))`.execute(trx);
      return new ProjectRepository(trx).rename(project, slug, title);
    });
    return ok({ handle: saved.handle, title: saved.title, space: saved.space, aliases: await repo.aliases(saved.id) });
  });
}
