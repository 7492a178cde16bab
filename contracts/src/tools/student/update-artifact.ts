import { z } from 'zod';
import { deepStrings, INPUT_LIMITS } from '../../bounds.ts';
import { DESTRUCTIVE, defineTool } from '../../tool.ts';
import { CourseSpaceArg, DocumentFill, EmptyCell, ObjectiveProgress } from '../shapes.ts';

/** update_artifact: writes rows or fields of a course document block, in the student's words. */
export const update_artifact = defineTool({
  name: 'update_artifact',
  surface: 'student',
  service: 'homework',
  title: 'Записать в документ курса',
  description:
    'Записывает в раздел key документа artifact курса course словами ученика: rows — строки раздела many (без id — новая; ' +
    'с id меняются названные клетки), delete_rows — ID на удаление; fields — поля раздела one; ' +
    'clear: true очищает раздел, когда записанное перестало быть правдой. Клетка — текст до 4000 знаков, пустая стирается; ' +
    'empty_cells в ответе — чего не хватает. ' +
    'Отказы: artifact_not_found, artifact_block_not_found, artifact_nothing_to_write, artifact_clear_with_content, artifact_wrong_section, artifact_unknown_column, artifact_unknown_field, artifact_unknown_row, artifact_invalid_value, artifact_too_many_rows, not_enrolled, organization_suspended.',
  input: z.object({
    course: z.string(),
    artifact: z.string(),
    key: z.string().describe('Ключ раздела, регистр не важен.'),
    // Cells are let through well above the spec's 4000 (CELL_LIMIT): the service answers
    // artifact_invalid_value with the field and max itself; only a hostile size is invalid_arguments.
    rows: deepStrings(z.unknown(), INPUT_LIMITS.answer)
      .optional()
      .describe('Строки раздела many: [{"id": "A1", "колонка": "текст"}].'),
    delete_rows: z.unknown().optional(),
    fields: deepStrings(z.unknown(), INPUT_LIMITS.answer).optional().describe('Поля раздела one: {"поле": "текст"}.'),
    // Any value reaches the service, which answers artifact_invalid_value (param) for a non-boolean.
    clear: z
      .unknown()
      .optional()
      .describe('true или false, по умолчанию false; не вместе с rows, delete_rows и fields.'),
    space: CourseSpaceArg.optional(),
  }),
  output: z.looseObject({
    space: z.string().optional(),
    artifact: z.string(),
    key: z.string(),
    ...DocumentFill.shape,
    filled: z.boolean().optional().describe('Готов ли этот раздел'),
    created: z.array(z.string()),
    empty_cells: z.array(EmptyCell),
    objectives: z
      .array(ObjectiveProgress)
      .optional()
      .describe('Прогресс урока по целям — посреди занятия в этом пространстве: статусы целей, без пунктов'),
  }),
  annotations: DESTRUCTIVE,
  refusals: [
    'not_enrolled',
    'organization_suspended',
    'artifact_not_found',
    'artifact_block_not_found',
    'artifact_nothing_to_write',
    'artifact_clear_with_content',
    'artifact_wrong_section',
    'artifact_unknown_column',
    'artifact_unknown_field',
    'artifact_unknown_row',
    'artifact_invalid_value',
    'artifact_too_many_rows',
  ],
});
