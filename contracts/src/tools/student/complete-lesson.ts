import { z } from 'zod';
import { defineTool, WRITE_IDEMPOTENT } from '../../tool.ts';
import { BlockRef, LessonRef } from '../shapes.ts';

/** complete_lesson: closes a lesson that has no required quiz. */
export const complete_lesson = defineTool({
  name: 'complete_lesson',
  surface: 'student',
  service: 'lessons',
  title: 'Закрыть урок',
  description:
    'Закрывает урок без обязательной проверки знаний, когда все обязательные пункты урока закрыты (mark_goal). ' +
    'В ответе урок, статус занятия, next_lesson — следующий урок курса, empty_blocks — разделы документа урока, оставшиеся незаполненными ' +
    '(урок закрывается и с ними: скажите ученику, что дописать), и teaching_rules — правила закрытия урока: домашнее задание, вопрос, помогло ли занятие, следующий урок. ' +
    'Отказы: goals_open — в goals открытые пункты, разберите и отметьте их; quiz_required — урок закрывает только сданный квиз (request_quiz); ' +
    'session_closed — занятие закрыто, возвращайтесь через start_lesson; not_your_session; not_enrolled, organization_suspended — доступ отозван; ' +
    'course_not_released, lesson_not_in_release, run_archived, busy — отказы цепочки урока (busy — повторить один раз).',
  input: z.object({
    session: z.string().describe('Идентификатор занятия из ответа start_lesson. Обязательный.'),
  }),
  output: z.looseObject({
    lesson: z.string(),
    status: z.string().describe('Статус занятия'),
    next_lesson: LessonRef.nullable(),
    empty_blocks: z.array(BlockRef),
    teaching_rules: z.string().optional().describe('Правила закрытия урока; в веб-чате поля нет'),
  }),
  annotations: WRITE_IDEMPOTENT,
  refusals: [
    'not_your_session',
    'session_closed',
    'goals_open',
    'quiz_required',
    'not_enrolled',
    'organization_suspended',
    'course_not_released',
    'lesson_not_in_release',
    'run_archived',
    'busy',
  ],
});
