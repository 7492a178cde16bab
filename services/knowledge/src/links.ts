import type { Kb } from './kb.ts';
import { crossSpaceLink, linkTargetMissing, noteNotFound } from './refusals.ts';
import { type LinkRepository, linkView } from './repositories/link.repository.ts';
import { isUuid, type NoteRepository, type NoteRow } from './repositories/note.repository.ts';
import type { ProjectRow } from './repositories/project.repository.ts';

/** One link request (link, link_many, the links of create_note). */
export interface LinkRequest {
  type: string;
  to?: string;
  toTitle?: string;
}

/**
 * Adds a typed link from `from`: to a note id (visible, live, in the same space), or to a title,
 * resolved now in the from-note's project (former titles included) or kept as a forward reference.
 */
export async function addLink(
  r: { notes: NoteRepository; links: LinkRepository },
  from: NoteRow,
  req: LinkRequest,
  projects: ProjectRow[],
  visible: (n: NoteRow) => boolean,
) {
  const type = req.type.trim();
  if (!type) return linkTargetMissing('type');
  const fromSpace = projects.find((p) => p.id === from.project)?.space ?? null;
  if (req.to) {
    const target = isUuid(req.to) ? await r.notes.get(req.to) : undefined;
    if (!target || target.deleted_at || !visible(target)) return noteNotFound(req.to);
    const toSpace = projects.find((p) => p.id === target.project)?.space ?? null;
    if (!fromSpace || fromSpace !== toSpace) return crossSpaceLink(from.id, target.id);
    const { link } = await r.links.add({ from: from.id, type, to: target.id, toTitle: null, origin: 'tool' });
    return { ok: true as const, link: linkView(link) };
  }
  const title = req.toTitle?.replace(/^\[\[|\]\]$/g, '').trim();
  if (!title) return linkTargetMissing('target');
  if (!from.project) return crossSpaceLink(from.id);
  const target = await r.notes.resolveTitle(from.project, title);
  const { link } = await r.links.add({ from: from.id, type, to: target?.id ?? null, toTitle: title, origin: 'tool' });
  return { ok: true as const, link: linkView(link) };
}

export type { Kb };
