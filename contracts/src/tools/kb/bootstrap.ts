import { z } from 'zod';
import { Timestamp } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { StudentNote } from '../student/my-notes.ts';
import { ActivityView, ProjectArg, ProjectView } from './shapes.ts';

/** start_session: profile, projects, the project's compact index, the delta since the caller's last change, knownValues (a pure read). */
export const start_session = defineTool({
  name: 'start_session',
  surface: 'kb',
  service: 'knowledge',
  title: 'Сессияны бастау',
  description:
    'Жаңа сессияда бірінші шақырылады. ' +
    'Бір сұрауда: пайдаланушы профилі (әрқашан), қолжетімді жобалар, ал project берілсе — жобаның ықшам индексі, соңғы визиттен бергі (болмаса — 7 күндегі) өзгерістер дельтасы және knownValues (категориялар, тегтер, түрлер). ' +
    'Идемпотентті; міндетті емес — тек контекст азырақ болады.',
  input: z.object({ project: ProjectArg.optional() }),
  output: z.looseObject({
    profile: z.looseObject({
      facts: z.array(StudentNote),
      keys: z.record(z.string(), z.string()),
      /** What remember_about_user stored, one entry per category. */
      memory: z.array(
        z.looseObject({ id: z.string(), category: z.string(), content: z.string(), updated_at: Timestamp }),
      ),
    }),
    projects: z.array(ProjectView),
    project: z
      .looseObject({ handle: z.string(), title: z.string(), notes: z.number().int(), folders: z.array(z.string()) })
      .optional(),
    delta: z
      .looseObject({
        since: z.string().nullable(),
        changes: z.array(ActivityView),
        /** Changes since the last visit; more than `changes` holds when `more`, and `rest` says where they are. */
        total: z.number().int(),
        more: z.boolean(),
        rest: z.string().optional(),
      })
      .optional(),
    knownValues: z.looseObject({
      categories: z.array(z.string()),
      tags: z.array(z.string()),
      types: z.array(z.string()),
    }),
  }),
  annotations: READ,
  refusals: ['projectNotFound'],
});

/** whoami (kb): principal, scope, memberships and the engine's capabilities. */
export const kb_whoami = defineTool({
  name: 'whoami',
  surface: 'kb',
  service: 'knowledge',
  title: 'Мен кіммін',
  description:
    'Мен кіммін (principal), шегім қандай (read/write), қай кеңістіктер мен жобаларда мүшемін және қозғалтқыштың capabilities ' +
    'жиынтығы (vector, trash, revisions) — соқыр күйде байқап көрмеу үшін.',
  input: z.object({}),
  output: z.looseObject({
    principal: z.string(),
    full_name: z.string(),
    scope: z.enum(['read', 'write']),
    memberships: z.array(z.looseObject({ space: z.string(), role: z.string(), projects: z.array(z.string()) })),
    capabilities: z.looseObject({ vector: z.boolean(), trash: z.boolean(), revisions: z.boolean() }),
  }),
  annotations: READ,
  refusals: [],
});

/** get_my_projects: the flat list of accessible projects with ready handles. */
export const get_my_projects = defineTool({
  name: 'get_my_projects',
  surface: 'kb',
  service: 'knowledge',
  title: 'Менің жобаларым',
  description:
    'Қолжетімді жобалардың жалпақ тізімі дайын хэндлдерімен — project аргументіне. ' +
    'Хэндлді ережемен құрастырмай, жауаптан сол қалпында алыңыз (түбірлік жобада ол бір сегмент). Жеке домен тізімге кірмейді.',
  input: z.object({}),
  output: z.looseObject({ projects: z.array(ProjectView) }),
  annotations: READ,
  refusals: [],
});
