import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { defineTool, WRITE, WRITE_IDEMPOTENT } from '../../tool.ts';
import { LinkSpec, LinkView, ProjectArg } from './shapes.ts';

const ItemError = z.looseObject({ code: z.string(), message: z.string() });

/** create_notes: several notes in one project; best effort, per-item results. */
export const create_notes = defineTool({
  name: 'create_notes',
  surface: 'kb',
  service: 'knowledge',
  title: 'Бірнеше жазба құру',
  description:
    'Бір жобада бір шақырумен бірнеше жазба құрады (ең көбі 100). Best-effort, транзакциялық емес: results[] әрқайсысын ok/error деп ' +
    'белгілейді — тек сәтсіздерін қайталаңыз. Бір топтағы жазбалар бір-біріне toTitle арқылы сілтей алады.',
  input: z.object({
    project: ProjectArg,
    notes: z.array(
      z.object({
        body: z.string().max(INPUT_LIMITS.text),
        path: z.string().max(INPUT_LIMITS.title).optional(),
        type: z.string().optional(),
        tags: z.array(z.string()).optional(),
        links: z.array(LinkSpec).optional(),
      }),
    ),
  }),
  output: z.looseObject({
    results: z.array(
      z.looseObject({
        index: z.number().int(),
        ok: z.boolean(),
        id: z.string().optional(),
        title: z.string().optional(),
        error: ItemError.optional(),
      }),
    ),
  }),
  annotations: WRITE,
  refusals: ['projectNotFound', 'tooMany'],
});

/** link_many: several typed links in one call; best effort, idempotent. */
export const link_many = defineTool({
  name: 'link_many',
  surface: 'kb',
  service: 'knowledge',
  title: 'Бірнеше байланыс',
  description:
    'Бір шақырумен бірнеше типтелген байланыс қосады (ең көбі 200). Best-effort, идемпотентті: бар байланыс қайта қосылмайды; ' +
    'results[] әрқайсысын ok/error деп белгілейді.',
  input: z.object({
    links: z.array(
      z.object({
        from: z.string(),
        type: z.string(),
        to: z.string().optional(),
        toTitle: z.string().max(INPUT_LIMITS.title).optional(),
      }),
    ),
  }),
  output: z.looseObject({
    results: z.array(
      z.looseObject({
        index: z.number().int(),
        ok: z.boolean(),
        link: LinkView.optional(),
        error: ItemError.optional(),
      }),
    ),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: ['tooMany'],
});
