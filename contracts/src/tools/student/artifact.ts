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
    'Документы курса course, которые собирает ученик: без artifact — перечень, с artifact — документ по разделам. ' +
    'Раздел rows: many — строки items (id A1, A2…), one — поля values. ' +
    'Колонка required: true, false или {if_column} — обязательна, когда заполнена та колонка; empty_cells — чего не хватает. ' +
    'Отказы: not_enrolled, organization_suspended; artifact_not_found — ключ из перечня.',
  input: z.object({
    course: z.string(),
    artifact: z.string().optional().describe('Ключ документа, например agreements_log; без него — перечень.'),
    space: CourseSpaceArg.optional(),
  }),
  output: z.looseObject(ArtifactViewFields),
  annotations: READ,
  refusals: ['not_enrolled', 'organization_suspended', 'artifact_not_found'],
});
