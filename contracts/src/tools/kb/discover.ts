import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { ActivityView, intIn, ProjectArg } from './shapes.ts';

/** list_notes: the ls of the knowledge base — a folder's notes and subfolders, paginated. */
export const list_notes = defineTool({
  name: 'list_notes',
  surface: 'kb',
  service: 'knowledge',
  title: 'Қалтадағы жазбалар',
  description:
    'Білім қорының ls-і: қалтаның тікелей жазбалары мен ішкі қалталары, детерминистік ретпен, беттеп. ' +
    'path пен хэндлді жауаптан сол қалпында алыңыз. Агенттің жадын емес, ортақ жазбаларды тізеді.',
  input: z.object({
    project: ProjectArg,
    path: z.string().max(INPUT_LIMITS.title).optional().describe('Қалта жолы, мысалы guides/setup; түбір — бос'),
    tag: z.string().optional().describe('Тек осы тегі бар жазбалар'),
    cursor: z.string().optional().describe('Алдыңғы жауаптың next_cursor мәні'),
    limit: intIn(1, 200).optional().describe('Әдепкісі 50'),
  }),
  output: z.looseObject({
    project: z.string(),
    path: z.string(),
    folders: z.array(z.string()),
    notes: z.array(
      z.looseObject({
        id: z.string(),
        title: z.string(),
        path: z.string(),
        tags: z.array(z.string()),
        updated_at: Timestamp,
      }),
    ),
    next_cursor: z.string().nullable(),
  }),
  annotations: READ,
  refusals: ['projectNotFound', 'invalidPath'],
});

/** recent_activity: the most recently changed notes, who changed them, how, where and when. */
export const recent_activity = defineTool({
  name: 'recent_activity',
  surface: 'kb',
  service: 'knowledge',
  title: 'Соңғы өзгерістер',
  description:
    'Ең соңғы өзгертілген жазбалар — «жақында нені қозғады, ревью керек»: кім (адам немесе агент), қалай, қайда, қашан. ' +
    'project берілмесе — барлық жобалар. Бұл start_session-дегі дельта емес.',
  input: z.object({
    project: ProjectArg.optional(),
    limit: intIn(1, 100).optional().describe('Әдепкісі 20'),
  }),
  output: z.looseObject({ items: z.array(ActivityView) }),
  annotations: READ,
  refusals: ['projectNotFound'],
});
