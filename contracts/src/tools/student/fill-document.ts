import { z } from 'zod';
import { SpaceArg } from '../../common.ts';
import { defineTool, READ } from '../../tool.ts';
import { ArtifactViewFields } from '../shapes.ts';

/** fill_document: fills a document of an already passed course with the student, without re-teaching. */
export const fill_document = defineTool({
  name: 'fill_document',
  surface: 'student',
  service: 'homework',
  title: 'Заполнить документ курса',
  description:
    'Собирает документ уже пройденного курса course — например, для компании, когда курс пройден лично (документ у каждого пространства свой). ' +
    'Ответ как у artifact и rules — правила для агента. ' +
    'Уроки заново не ведите: идите по незаполненным разделам и пишите словами ученика через update_artifact с тем же space. ' +
    'Отказы: not_enrolled, organization_suspended, artifact_not_found.',
  input: z.object({
    course: z.string(),
    artifact: z.string().optional().describe('Ключ документа; без него — перечень.'),
    space: SpaceArg.describe(
      'Чей документ: организация из whoami или personal; без него — выбранное учеником.',
    ).optional(),
  }),
  output: z.looseObject({
    ...ArtifactViewFields,
    rules: z.string().describe('Правила заполнения для агента'),
  }),
  annotations: READ,
  refusals: ['not_enrolled', 'organization_suspended', 'artifact_not_found'],
});
