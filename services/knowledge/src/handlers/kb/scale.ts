import { create_notes, link_many, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import type { Kb } from '../../kb.ts';
import { projectNotFound, tooMany } from '../../refusals.ts';
import { createOne, linkOne } from './write.ts';

const MAX_NOTES = 100;
const MAX_LINKS = 200;

/** create_notes: best effort, one result per note, in order (later notes resolve earlier forward references). */
export function createNotesHandler(kb: Kb) {
  return endpoint(create_notes, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    if (args.notes.length > MAX_NOTES) return tooMany(MAX_NOTES, args.notes.length);
    const project = await kb.access.project(p, args.project);
    if (!project) return projectNotFound(args.project);
    const projects = await kb.access.projects(p);
    const results = [];
    for (const [index, note] of args.notes.entries()) {
      const r = await createOne(kb, p, project, projects, note);
      if (r.ok) results.push({ index, ok: true, id: r.data.id, title: r.data.title });
      else results.push({ index, ok: false, error: r.error });
    }
    return ok({ results });
  });
}

/** link_many: best effort and idempotent, one result per link. */
export function linkManyHandler(kb: Kb) {
  return endpoint(link_many, async (args, ctx) => {
    const p = kb.access.principal(ctx, true);
    if (args.links.length > MAX_LINKS) return tooMany(MAX_LINKS, args.links.length);
    const results = [];
    for (const [index, l] of args.links.entries()) {
      const r = await linkOne(kb, p, l);
      if (r.ok) results.push({ index, ok: true, link: r.data });
      else results.push({ index, ok: false, error: r.error });
    }
    return ok({ results });
  });
}
