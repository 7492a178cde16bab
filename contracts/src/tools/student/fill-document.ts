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
    'Собирает с учеником документ курса, который он уже прошёл, без повторного обучения: например, курс пройден лично, а документ нужен для компании ' +
    '(прогресс общий, документ у каждого пространства свой). ' +
    'Ответ тот же, что у artifact (перечень или документ по разделам), плюс rules — правила заполнения для агента; ученику их не зачитывают. ' +
    'Уроки заново не ведите: идите по незаполненным разделам в порядке документа, спрашивайте о проекте этой организации и записывайте словами ученика ' +
    'через update_artifact с тем же space. Отказы как у artifact: not_enrolled, organization_suspended, artifact_not_found.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    artifact: z.string().optional().describe('Ключ документа. Необязательный; без него приходит перечень документов.'),
    space: SpaceArg.describe(
      'Чей документ: имя организации из whoami или personal. Необязательный; без него — выбранное учеником.',
    ).optional(),
  }),
  output: z.looseObject({
    ...ArtifactViewFields,
    rules: z.string().describe('Правила заполнения для агента'),
  }),
  annotations: READ,
  refusals: ['not_enrolled', 'organization_suspended', 'artifact_not_found'],
});
