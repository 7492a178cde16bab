import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';
import { defineTool, READ, WRITE } from '../../tool.ts';
import { HomeworkEvent, HomeworkFile, HomeworkStatus, HomeworkVersion } from '../shapes.ts';

/** A submission in the curator's review queue. */
export const ReviewItem = z.looseObject({
  submission: z.string(),
  course: z.string(),
  lesson: z.string(),
  lesson_key: z.string(),
  student: z.string(),
  space: z.string(),
  status: HomeworkStatus,
  version: z.number().int().nullable(),
  submitted_at: Timestamp.nullable(),
  due_at: Timestamp.nullable(),
});

/** One submission with every version, its files (signed download URLs) and its journal. */
export const ReviewSubmission = ReviewItem.extend({
  answer: z.string().nullable(),
  files: z.array(HomeworkFile),
  last_comment: z.string().nullable(),
  events: z.array(HomeworkEvent),
  versions: z.array(HomeworkVersion),
});

const SubmissionArg = z.string().describe('Идентификатор сдачи из homework_queue. Обязательный.');
const REVIEW_REFUSALS = ['submission_not_found', 'invalid_transition', 'comment_required'] as const;

/** homework_queue: submissions waiting for the curator (Submitted), oldest first. */
export const homework_queue = defineTool({
  name: 'homework_queue',
  surface: 'curator',
  service: 'homework',
  title: 'Домашки на проверку',
  description:
    'Очередь домашних заданий, которые ждут куратора (Submitted), давно сданные сверху: курс, урок, ученик, пространство, номер версии, когда сдано и срок. ' +
    'Без course — курсы, которые вы ведёте (модератору и администратору — все); status — показать и другие статусы: Assigned, Returned, Accepted. ' +
    'Сдачу целиком со всеми версиями даёт homework_submission. Отказы: course_not_found; homework_status_unknown (allowed).',
  input: z.object({
    course: z.string().optional().describe('Идентификатор курса. Необязательный.'),
    status: z.string().optional().describe('Статус сдач: Submitted (по умолчанию), Returned, Accepted или Assigned.'),
  }),
  output: z.looseObject({ items: z.array(ReviewItem), has_more: z.boolean() }),
  annotations: READ,
  refusals: ['course_not_found', 'homework_status_unknown'],
});

/** homework_submission: one submission with every saved version, files and journal. */
export const homework_submission = defineTool({
  name: 'homework_submission',
  surface: 'curator',
  service: 'homework',
  title: 'Сдача домашки',
  description:
    'Сдача домашнего задания целиком: текущий ответ, файлы со ссылками на скачивание (ссылка подписана и живёт час), журнал событий и versions — все сохранённые версии ответа ' +
    '(у версий старше десяти последних текст опущен, answer_omitted: прочитайте такую с version). ' +
    'Вернуть на доработку — return_homework, принять — accept_homework, отменить приём — cancel_acceptance. Отказы: submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    version: z
      .union([z.number(), z.string()])
      .optional()
      .describe('Номер версии, ответ которой прислать целиком (у старых версий ответ иначе опущен). Необязательный.'),
  }),
  output: ReviewSubmission,
  annotations: READ,
  studentText: ['', 'versions[]', 'files[]'],
  refusals: ['submission_not_found'],
});

/** return_homework: sends a submitted homework back for rework with the curator's comment. */
export const return_homework = defineTool({
  name: 'return_homework',
  surface: 'curator',
  service: 'homework',
  title: 'Вернуть домашку на доработку',
  description:
    'Возвращает сданную домашку (Submitted) на доработку с комментарием куратора: статус Returned, комментарий ученик увидит в my_homework и в начале следующего занятия. ' +
    'Отказы: comment_required — комментарий пуст; invalid_transition (status, allowed) — сдача не ждёт проверки; submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text).describe('Что доработать — словами для ученика. Обязательный.'),
  }),
  output: ReviewSubmission,
  annotations: WRITE,
  studentText: ['', 'versions[]', 'files[]'],
  refusals: REVIEW_REFUSALS,
});

/** accept_homework: accepts a submitted homework; the answer is closed for edits. */
export const accept_homework = defineTool({
  name: 'accept_homework',
  surface: 'curator',
  service: 'homework',
  title: 'Принять домашку',
  description:
    'Принимает сданную домашку (Submitted): статус Accepted, правка ответа закрыта — дальнейшая сдача ученика получит accepted_locked. comment — необязательный отзыв. ' +
    'Отказы: invalid_transition (status, allowed); submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text).optional().describe('Отзыв куратора. Необязательный.'),
  }),
  output: ReviewSubmission,
  annotations: WRITE,
  studentText: ['', 'versions[]', 'files[]'],
  refusals: ['submission_not_found', 'invalid_transition'],
});

/** cancel_acceptance: cancels the acceptance of a homework with a comment; the student may edit again. */
export const cancel_acceptance = defineTool({
  name: 'cancel_acceptance',
  surface: 'curator',
  service: 'homework',
  title: 'Отменить приём домашки',
  description:
    'Отменяет приём домашки (Accepted) с комментарием: статус Returned, ученик снова может править ответ. ' +
    'Отказы: comment_required; invalid_transition (status, allowed) — домашка не принята; submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text).describe('Почему приём отменён и что доработать. Обязательный.'),
  }),
  output: ReviewSubmission,
  annotations: WRITE,
  studentText: ['', 'versions[]', 'files[]'],
  refusals: REVIEW_REFUSALS,
});
