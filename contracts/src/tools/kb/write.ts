import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { DESTRUCTIVE, defineTool, WRITE, WRITE_IDEMPOTENT } from '../../tool.ts';
import { LinkSpec, LinkView, ProjectArg } from './shapes.ts';

/** A written note: id, title, path, version token and the links it made. */
export const WrittenNote = z.looseObject({
  id: z.string(),
  title: z.string(),
  path: z.string(),
  project: z.string().nullable(),
  versionToken: z.string(),
  links: z.array(LinkView).optional(),
  /** True when the call changed nothing (same folder, same title, an empty append): no revision, no activity. */
  unchanged: z.boolean().optional(),
});

/** create_note: a new shared (user-doc) note; title from the first # H1 of the body. */
export const create_note = defineTool({
  name: 'create_note',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жазба құру',
  description:
    'Жобада жаңа ортақ жазба құрады, класы — user-doc; тақырыбын body ішіндегі бастапқы # H1 белгілейді. ' +
    'links — типтелген қырлар (to — id, toTitle — әлі жоқ жазбаға forward-ref); мәтіндегі [[Тақырып]] да байланыс болады. ' +
    'Класты да, кеңістікті де агент таңдамайды. Жазар алдында search жасаңыз.',
  input: z.object({
    project: ProjectArg,
    body: z.string().max(INPUT_LIMITS.answer).describe('Markdown; бірінші жолы # Тақырып'),
    path: z.string().max(INPUT_LIMITS.title).optional().describe('Қалта, мысалы guides/setup; әдепкісі түбір'),
    type: z.string().optional().describe('Жазба түрі, мысалы guide, decision'),
    tags: z.array(z.string()).optional(),
    links: z.array(LinkSpec).optional(),
  }),
  output: WrittenNote,
  annotations: WRITE,
  refusals: ['projectNotFound', 'titleMissing', 'titleTaken', 'invalidPath', 'crossSpaceLink', 'linkTargetMissing'],
});

/** remember_about_user: a long-lived fact about the user into their private memory, under a category. */
export const remember_about_user = defineTool({
  name: 'remember_about_user',
  surface: 'kb',
  service: 'knowledge',
  title: 'Пайдаланушы туралы есте сақтау',
  description:
    'Пайдаланушы туралы ұзақ өмір сүретін фактіні (қалаулары, контексті) оның жеке жадына жазады: category астына observation ' +
    'үстеп жазылады. Ортақ білім емес; start_session мен recall оны қайтарады.',
  input: z.object({
    observation: z.string().max(INPUT_LIMITS.text).describe('Факт немесе бақылау'),
    category: z.string().optional().describe('Категория, мысалы preferences, context; әдепкісі general'),
  }),
  output: z.looseObject({ id: z.string(), category: z.string(), versionToken: z.string() }),
  annotations: WRITE,
  refusals: ['emptyQuery'],
});

/** remember_about_project: a fact about a project into the agent's private memory (class agent-memory). */
export const remember_about_project = defineTool({
  name: 'remember_about_project',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жоба туралы есте сақтау',
  description:
    'Жоба туралы фактіні агенттің жеке жадына жазады (класы agent-memory, remember_about_user-ге симметриялы): category астына ' +
    'observation үстеп жазылады. Ортақ білім емес — ол үшін create_note.',
  input: z.object({
    project: ProjectArg,
    observation: z.string().max(INPUT_LIMITS.text).describe('Факт немесе бақылау'),
    category: z.string().optional().describe('Категория; әдепкісі general'),
  }),
  output: z.looseObject({ id: z.string(), category: z.string(), project: z.string(), versionToken: z.string() }),
  annotations: WRITE,
  refusals: ['projectNotFound', 'emptyQuery'],
});

/** edit_note: incremental edit by words, not positions; needs a fresh versionToken (CAS). */
export const edit_note = defineTool({
  name: 'edit_note',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жазбаны түзету',
  description:
    'Жазбаны позиция бойынша емес, сөз бойынша түзетеді: append, prepend, replace (дене түгел), replaceSection (heading бөлімі), findReplace (find — бірегей сниппет; ' +
    'бос content — жою). ' +
    'versionToken жаңа ғана алынған get_note-тан (CAS): қатарлас түзету versionConflict қайтарады — қайта оқып, қайталаңыз. ' +
    'Өзгеріссіз түзету жаңа нұсқа жасамайды: unchanged: true.',
  input: z.object({
    id: z.string(),
    versionToken: z.string(),
    mode: z.string(),
    content: z.string().max(INPUT_LIMITS.answer),
    heading: z.string().max(INPUT_LIMITS.title).optional().describe('# белгісіз'),
    find: z.string().max(INPUT_LIMITS.text).optional(),
  }),
  output: WrittenNote,
  annotations: WRITE,
  refusals: [
    'noteNotFound',
    'versionConflict',
    'unknownEditMode',
    'sectionNotFound',
    'snippetNotFound',
    'snippetNotUnique',
    'titleMissing',
    'titleTaken',
  ],
});

/** delete_note: moves a note to the trash; only a person restores or purges it. */
export const delete_note = defineTool({
  name: 'delete_note',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жазбаны себетке',
  description:
    'Жазбаны себетке жылжытады — агенттің жалғыз деструктивті, қайтарымды әрекеті. ' +
    'Қалпына келтіруді де, себетті тазартуды да тек адам жасайды.',
  input: z.object({ id: z.string() }),
  output: z.looseObject({ id: z.string(), title: z.string(), trashed: z.literal(true) }),
  annotations: DESTRUCTIVE,
  refusals: ['noteNotFound'],
});

/** link: a typed edge from a note to a note id, or to a title (a forward reference). */
export const link = defineTool({
  name: 'link',
  surface: 'kb',
  service: 'knowledge',
  title: 'Байланыстыру',
  description:
    'from → нысана типтелген байланысын қосады: to (note-id) немесе toTitle (әлі жоқ жазбаға forward-ref, ол құрылғанда резолвтеледі). ' +
    'Екі жазба бір кеңістікте болуға тиіс. Идемпотентті.',
  input: z.object({
    from: z.string().describe('Бастапқы жазба id-і'),
    type: z.string().describe('Байланыс түрі, мысалы relates, depends_on'),
    to: z.string().optional(),
    toTitle: z.string().max(INPUT_LIMITS.title).optional(),
  }),
  output: LinkView,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['noteNotFound', 'crossSpaceLink', 'linkTargetMissing'],
});
