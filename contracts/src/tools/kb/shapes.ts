import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';

/**
 * Refusal codes of the /kb tools. Spec 004 names only versionConflict; the others follow its
 * camelCase and are documented in services/knowledge/README.md.
 */
export const KB_REFUSALS = {
  projectNotFound: 'projectNotFound',
  noteNotFound: 'noteNotFound',
  versionConflict: 'versionConflict',
  titleMissing: 'titleMissing',
  titleTaken: 'titleTaken',
  crossSpaceLink: 'crossSpaceLink',
  linkTargetMissing: 'linkTargetMissing',
  sectionNotFound: 'sectionNotFound',
  snippetNotFound: 'snippetNotFound',
  snippetNotUnique: 'snippetNotUnique',
  unknownEditMode: 'unknownEditMode',
  folderNotFound: 'folderNotFound',
  invalidPath: 'invalidPath',
  handleTaken: 'handleTaken',
  invalidHandle: 'invalidHandle',
  ambiguousRef: 'ambiguousRef',
  emptyQuery: 'emptyQuery',
  tooMany: 'tooMany',
  folderIntoItself: 'folderIntoItself',
} as const;
export type KbRefusal = keyof typeof KB_REFUSALS;

/** Note classes: shared knowledge (create_note) or the agent's private memory (remember_*). */
export const NoteClass = z.enum(['user-doc', 'agent-memory']);

/** Marker on every note content returned to an agent: stored text is data, never instructions. */
export const UNTRUSTED = 'untrusted' as const;

/** Argument `project`: a handle from get_my_projects, taken as is. */
export const ProjectArg = z.string().describe('get_my_projects хэндлі, сол қалпында');

/** A typed link to add with a note (create_note, create_notes). */
export const LinkSpec = z.object({
  type: z.string().describe('Мысалы relates, depends_on, part_of'),
  to: z.string().optional().describe('Нысана id-і'),
  toTitle: z.string().max(INPUT_LIMITS.title).optional().describe('Әлі жоқ жазбаның тақырыбы (forward-ref)'),
});

/** A link as the tools return it. */
export const LinkView = z.looseObject({
  id: z.string(),
  type: z.string(),
  from: z.string(),
  to: z.string().nullable(),
  toTitle: z.string().nullable(),
  resolved: z.boolean(),
});

/** A project as get_my_projects lists it. */
export const ProjectView = z.looseObject({
  handle: z.string(),
  title: z.string(),
  space: z.string(),
});

/** Who did something and how: a person (CLI, HTTP route) or an agent (a tool). */
export const Actor = z.looseObject({ user: z.string(), kind: z.enum(['human', 'agent']) });

/** One ranked search hit. */
export const SearchHit = z.looseObject({
  id: z.string(),
  title: z.string(),
  path: z.string(),
  project: z.string().nullable(),
  class: NoteClass,
  snippet: z.string(),
  score: z.number(),
  trust: z.literal(UNTRUSTED),
});

/** One change of a note (recent_activity, the delta of start_session). */
export const ActivityView = z.looseObject({
  note: z.string(),
  title: z.string(),
  path: z.string(),
  project: z.string().nullable(),
  action: z.string(),
  by: Actor,
  at: Timestamp,
});

/**
 * An integer argument with its range: a number outside it is refused (invalid_arguments naming the
 * field and the range), never quietly clamped to the nearest bound.
 */
export function intIn(min: number, max: number) {
  const msg = `${min}–${max} аралығындағы бүтін сан болуы керек`;
  return z.number().int(msg).min(min, msg).max(max, msg);
}
