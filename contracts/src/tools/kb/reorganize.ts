import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { ProjectArg, ProjectView } from './shapes.ts';
import { WrittenNote } from './write.ts';

const FolderResult = z.looseObject({ project: z.string(), from: z.string(), to: z.string(), moved: z.number().int() });

/** move_note: another folder, same title; id and links stay. */
export const move_note = defineTool({
  name: 'move_note',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жазбаны жылжыту',
  description:
    'Жазбаны атын сақтай отырып басқа қалтаға жылжытады. id тұрақты, кіріс сілтемелер үзілмейді. ' +
    'Жазба сол қалтада тұрса, ештеңе өзгермейді (unchanged: true, жаңа нұсқа жоқ).',
  input: z.object({ id: z.string(), path: z.string().max(INPUT_LIMITS.title).describe('Жаңа қалта; түбір — бос') }),
  output: WrittenNote,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['noteNotFound', 'invalidPath'],
});

/** rename_note: a new title; the old one becomes an alias, so [[links]] still resolve. */
export const rename_note = defineTool({
  name: 'rename_note',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жазбаның атын өзгерту',
  description:
    'Жазбаның тақырыбын (және бірінші # H1 жолын) өзгертеді. Link-safe: ескі тақырып alias-тарихқа өтеді, кіріс [[сілтемелер]] ' +
    'резолвтеле береді.',
  input: z.object({ id: z.string(), title: z.string().max(INPUT_LIMITS.title).describe('Жаңа тақырып') }),
  output: WrittenNote,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['noteNotFound', 'titleMissing', 'titleTaken'],
});

/** move_folder: a folder with everything inside under another parent; note ids stay. */
export const move_folder = defineTool({
  name: 'move_folder',
  surface: 'kb',
  service: 'knowledge',
  title: 'Қалтаны жылжыту',
  description:
    'Қалтаны ішіндегісімен түгел басқа аталық қалтаға жылжытады; id мен сілтемелер тұрақты. ' +
    'Бір транзакцияда: бәрі бірге жылжиды немесе ешқайсысы. Өз ішіне жылжыту — folderIntoItself.',
  input: z.object({
    project: ProjectArg,
    path: z.string().max(INPUT_LIMITS.title).describe('Жылжитын қалта'),
    newParent: z.string().max(INPUT_LIMITS.title).describe('Жаңа аталық қалта; түбір — бос'),
  }),
  output: FolderResult,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['projectNotFound', 'folderNotFound', 'invalidPath', 'folderIntoItself'],
});

/** rename_folder: renames a folder in place; a project's handle does not change. */
export const rename_folder = defineTool({
  name: 'rename_folder',
  surface: 'kb',
  service: 'knowledge',
  title: 'Қалтаның атын өзгерту',
  description:
    'Қалтаның атын орнында өзгертеді, бір транзакцияда; жазбалардың id-і тұрақты. ' +
    'Жобаның хэндлі өзгермейді — ол үшін rename_project.',
  input: z.object({
    project: ProjectArg,
    path: z.string().max(INPUT_LIMITS.title),
    name: z.string().max(INPUT_LIMITS.title).describe('Жаңа ат, бір сегмент'),
  }),
  output: FolderResult,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['projectNotFound', 'folderNotFound', 'invalidPath'],
});

/** rename_project: a new handle and/or title; the old handle becomes an alias. */
export const rename_project = defineTool({
  name: 'rename_project',
  surface: 'kb',
  service: 'knowledge',
  title: 'Жобаның атын өзгерту',
  description:
    'Жобаның хэндлін (slug) және/немесе атауын өзгертеді. Link-safe: ескі хэндл alias-қа өтеді. ' +
    'Кеңістіктің түбірлік жобасының хэндлін өзгертуге болмайды.',
  input: z.object({
    project: ProjectArg,
    slug: z.string().optional().describe('Жаңа slug (хэндлдің соңғы сегменті)'),
    title: z.string().max(INPUT_LIMITS.title).optional().describe('Жаңа атау'),
  }),
  output: z.looseObject({ ...ProjectView.shape, aliases: z.array(z.string()) }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['projectNotFound', 'handleTaken', 'invalidHandle'],
});
