import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';
import { ArtifactViewFields, CourseSpaceArg } from '../shapes.ts';

/** artifact: the student's course documents — the list, or one document by blocks. */
export const artifact = defineTool({
  name: 'artifact',
  surface: 'student',
  service: 'homework',
  title: 'Документы курса',
  description:
    'Показывает документы, которые ученик собирает по ходу курса: без artifact — перечень artifacts (ключ, название, зачем документ, сколько разделов всего и заполнено), ' +
    'с artifact — документ целиком по разделам blocks в порядке автора. ' +
    'Раздел rows: many ведётся строками (items, у строки id A1, A2…), rows: one — полями (values); пустые клетки не приходят. ' +
    'columns[].required: true, false или {if_column} — обязательна, когда заполнена названная колонка; filled — раздел готов, empty_cells — каких обязательных клеток не хватает; space в ответе — чей документ прочитан. ' +
    'Отказы: not_enrolled, organization_suspended — доступа к курсу нет; artifact_not_found — такого ключа нет, возьмите ключ из перечня (вызов без artifact).',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    artifact: z
      .string()
      .optional()
      .describe('Ключ документа, например agreements_log. Необязательный; без него приходит перечень документов.'),
    space: CourseSpaceArg.optional(),
  }),
  output: z.looseObject(ArtifactViewFields),
  annotations: READ,
  refusals: ['not_enrolled', 'organization_suspended', 'artifact_not_found'],
});
