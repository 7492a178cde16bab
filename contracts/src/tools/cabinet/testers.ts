import { z } from 'zod';
import { defineTool, READ, WRITE_IDEMPOTENT } from '../../tool.ts';

/** Most testers of one course (a grant is a person's decision; a long list is a mistake). */
export const TESTERS_MAX = 100;

/** A tester is named by their login (the platform's user id: an e-mail). */
const Login = z
  .string()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, 'логин — адрес электронной почты');

const Testers = z.object({
  course: z.string(),
  /** Whether the course is open to students (then testers need no grant). */
  status: z.enum(['draft', 'upcoming', 'published']),
  testers: z.array(z.string()),
});

/** course_testers: who may study the course before it opens. */
export const course_testers = defineTool({
  name: 'course_testers',
  surface: 'cabinet',
  service: 'courses',
  title: 'Тестеры курса',
  description: 'Кто может проходить курс до открытия. Отказ course_not_found.',
  input: z.object({ course: z.string() }),
  output: Testers,
  annotations: READ,
  refusals: ['course_not_found'],
});

/**
 * grant_tester: a person may enroll in the course and study it (agent and web pages) before it
 * opens. Given by a person in the cabinet, never by an agent (spec 000).
 */
export const grant_tester = defineTool({
  name: 'grant_tester',
  surface: 'cabinet',
  service: 'courses',
  title: 'Выдать доступ тестера',
  description: `Открывает курс до публикации одному человеку по логину пользователя платформы. Не больше ${TESTERS_MAX} тестеров. Отказы: course_not_found; user_not_found — такого пользователя нет; too_many_testers.`,
  input: z.object({ course: z.string(), user: Login }),
  output: Testers,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_found', 'user_not_found', 'too_many_testers'],
});

/** revoke_tester: the grant ends; an unopened course is closed to the person again. */
export const revoke_tester = defineTool({
  name: 'revoke_tester',
  surface: 'cabinet',
  service: 'courses',
  title: 'Снять доступ тестера',
  description: 'Закрывает неоткрытый курс человеку снова (прогресс сохраняется). Отказ course_not_found.',
  input: z.object({ course: z.string(), user: Login }),
  output: Testers,
  annotations: WRITE_IDEMPOTENT,
  refusals: ['course_not_found'],
});
