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
    'Записывает в раздел key документа artifact словами ученика. Раздел many: rows — строки [{"id": "A1", "колонка": "текст"}] ' +
    '(без id — новая строка, ID выдаст платформа; с id меняются только названные клетки), delete_rows — ID строк на удаление. ' +
    'Раздел one: fields — {"поле": "текст"}, меняются только названные поля. clear: true очищает раздел целиком, когда записанное перестало быть правдой; не вместе с остальными. ' +
    'Значение — текст до 4000 знаков, пустое стирает клетку; в ответе created — ID новых строк, empty_cells — каких обязательных клеток не хватает, заполненность документа (blocks_total, blocks_filled), посреди занятия — objectives, статусы целей урока без пунктов. ' +
    'Отказы: artifact_not_found, artifact_block_not_found, artifact_nothing_to_write, artifact_clear_with_content, artifact_wrong_section (rows — вид раздела), ' +
    'artifact_unknown_column, artifact_unknown_field (в отказе — какие есть), artifact_unknown_row, artifact_invalid_value (колонка и max или param), ' +
    'artifact_too_many_rows, not_enrolled, organization_suspended.',
  input: z.object({
    course: z.string().describe('Идентификатор курса. Обязательный.'),
    artifact: z.string().describe('Ключ документа. Обязательный.'),
    key: z.string().describe('Ключ раздела. Обязательный; регистр не важен.'),
    // Cells are let through well above the spec's 4000 (CELL_LIMIT): the service answers
    // artifact_invalid_value with the field and max itself; only a hostile size is invalid_arguments.
    rows: deepStrings(z.unknown(), INPUT_LIMITS.answer)
      .optional()
      .describe(
        'Строки раздела many: список {"id": "A1", "колонка": "текст"}. Необязательный. Строка без id — новая; с id меняются только названные клетки.',
      ),
    delete_rows: z.unknown().optional().describe('Список ID строк раздела many на удаление. Необязательный.'),
    fields: deepStrings(z.unknown(), INPUT_LIMITS.answer)
      .optional()
      .describe('Поля раздела one: {"поле": "текст"}. Необязательный; меняются только названные поля.'),
    // Any value reaches the service, which answers artifact_invalid_value (param) for a non-boolean.
    clear: z
      .unknown()
      .optional()
      .describe(
        'Очистить раздел: true — у many удалить все строки, у one — все поля. Необязательный, true или false, по умолчанию false; вместе с rows, delete_rows или fields не передаётся.',
      ),
    space: CourseSpaceArg.describe(
      'В чей документ: имя организации из whoami или personal. Необязательный; без него — пространство начатого занятия по курсу, иначе выбранное.',
    ).optional(),
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
