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
    'Закрывает урок без обязательного квиза, когда закрыты обязательные пункты. ' +
    'empty_blocks — незаполненные разделы документа урока: урок закрыт и с ними, скажите, что дописать; ' +
    'teaching_rules — правила закрытия. Отказы: goals_open — отметьте пункты из goals; ' +
    'quiz_required — урок закрывает сданный квиз (request_quiz); session_closed — start_lesson; not_your_session; ' +
    'not_enrolled, organization_suspended; course_not_released, lesson_not_in_release, run_archived, busy.',
  input: z.object({
    session: z.string().describe('id занятия из start_lesson.'),
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
