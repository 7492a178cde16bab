import type { Principal } from '@studium/contracts';
import {
  create_note,
  delete_note,
  edit_note,
  link,
  ok,
  remember_about_project,
  remember_about_user,
} from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { agent, type Kb, visibleNote, visibleTo } from '../../kb.ts';
import { addLink, type LinkRequest } from '../../links.ts';
import { emptyText, noteNotFound, projectNotFound } from '../../refusals.ts';
import type { ProjectRow } from '../../repositories/project.repository.ts';
import { Refused, repos, versionToken } from '../../writer.ts';

/** Creates one shared note with its links (create_note, create_notes). */
export async function createOne(
  kb: Kb,
  p: Principal,
  project: ProjectRow,
  projects: ProjectRow[],
  input: { body: string; path?: string; type?: string; tags?: string[]; links?: LinkRequest[] },
) {
  const visible = visibleTo(p, projects);
  return kb.writer.create(project, input, agent(p), async (r, n) => {
    const made = [];
    for (const l of input.links ?? []) {
      const res = await addLink(r, n, l, projects, visible);
      if (!res.ok) return res;
      made.push(res.link);
    }
    return made;
  });
}

/** create_note: a user-doc note in a project; class and space are not the agent's choice. */
export function createNoteHandler(kb: Kb) {
  return endpoint(create_note, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    return createOne(kb, p, project, await kb.access.projects(p), args);
  });
}

function category(c: string | undefined) {
  return c?.trim().toLowerCase().replace(/\s+/g, '-') || 'general';
}

/** remember_about_user: an observation under a category of the caller's private memory. */
export function rememberAboutUserHandler(kb: Kb) {
  return endpoint(remember_about_user, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    if (!args.observation.trim()) return emptyText('observation');
    const n = await kb.writer.remember(p.user, null, category(args.category), args.observation, agent(p));
    return ok({ id: n.id, category: n.category ?? 'general', versionToken: versionToken(n) });
  });
}

/** remember_about_project: an observation about a project in the caller's private memory (agent-memory). */
export function rememberAboutProjectHandler(kb: Kb) {
  return endpoint(remember_about_project, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    if (!args.observation.trim()) return emptyText('observation');
    const n = await kb.writer.remember(p.user, project, category(args.category), args.observation, agent(p));
    return ok({ id: n.id, category: n.category ?? 'general', project: project.handle, versionToken: versionToken(n) });
  });
}

/** edit_note: an edit by words under the version token; versionConflict on a stale one. */
export function editNoteHandler(kb: Kb) {
  return endpoint(edit_note, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const found = await visibleNote(kb, p, args.id);
    if (!found) return noteNotFound(args.id);
    return kb.writer.edit(
      args.id,
      args.versionToken.trim(),
      found.project,
      args,
      agent(p),
      visibleTo(p, found.projects),
    );
  });
}

/** delete_note: to the trash; only a person restores or purges. */
export function deleteNoteHandler(kb: Kb) {
  return endpoint(delete_note, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    const found = await visibleNote(kb, p, args.id);
    if (!found) return noteNotFound(args.id);
    return kb.writer.trash(args.id, found.project, agent(p), visibleTo(p, found.projects));
  });
}

/** Adds one link in its own transaction (link, link_many). */
export async function linkOne(kb: Kb, p: Principal, req: { from: string } & LinkRequest) {
  const found = await visibleNote(kb, p, req.from);
  if (!found) return noteNotFound(req.from);
  return kb.writer
    .transaction(async (r) => {
      const res = await addLink(r, found.note, req, found.projects, visibleTo(p, found.projects));
      if (!res.ok) throw new Refused(res);
      return ok(res.link);
    })
    .catch((err) => {
      if (err instanceof Refused) return err.reply;
      throw err;
    });
}

/** link: a typed edge to an id or a title (forward reference); idempotent. */
export function linkHandler(kb: Kb) {
  return endpoint(link, async (args, ctx) => linkOne(kb, kb.access.principal(ctx, true), args));
}

export { repos };
