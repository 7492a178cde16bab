import { z } from 'zod';
import { INPUT_LIMITS } from '../../bounds.ts';
import { Timestamp } from '../../common.ts';
import { defineTool, READ, WRITE } from '../../tool.ts';
import { CourseRef, HomeworkEvent, HomeworkFile, HomeworkStatus, HomeworkVersion } from '../shapes.ts';

/** A submission in the curator's review queue. */
export const ReviewItem = z.looseObject({
  submission: z.string(),
  course: z.string(),
  lesson: z.string(),
  lesson_key: z.string(),
  course_title: z.string().optional(),
  lesson_title: z.string().optional(),
  student: z.string(),
  /** The student's full name when the platform gave it to homework; null — only the login is known. */
  student_name: z.string().nullable().optional(),
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

const SubmissionArg = z.string().describe('id сдачи из homework_queue.');
const REVIEW_REFUSALS = ['submission_not_found', 'invalid_transition', 'comment_required'] as const;

/** homework_queue: submissions waiting for the curator (Submitted), oldest first. */
export const homework_queue = defineTool({
  name: 'homework_queue',
  surface: 'curator',
  service: 'homework',
  title: 'Домашки на проверку',
  description:
    'Домашки, которые ждут куратора (Submitted), давно сданные сверху. ' +
    'Без course — курсы, которые вы ведёте (модератору и администратору — все); ' +
    'status — другие статусы: Assigned, Returned, Accepted. Сдачу целиком даёт homework_submission. Отказы: course_not_found; ' +
    'homework_status_unknown.',
  input: z.object({
    course: z.string().optional(),
    status: z.string().optional(),
  }),
  output: z.looseObject({
    items: z.array(ReviewItem),
    has_more: z.boolean(),
    /** The courses you may filter by (course), by title. */
    courses: z.array(CourseRef).optional(),
  }),
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
    'Сдача submission целиком: ответ, файлы со ссылками (живут час), журнал и все версии; ' +
    'у версий старше десяти последних текст опущен — прочитайте такую с version. ' +
    'Вернуть — return_homework, принять — accept_homework, отменить приём — cancel_acceptance. Отказ submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    version: z.union([z.number(), z.string()]).optional(),
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
    'Возвращает сданную домашку на доработку с комментарием comment для ученика (статус Returned); ' +
    'ученик увидит его в my_homework и на следующем занятии. Отказы: comment_required; ' +
    'invalid_transition — сдача не ждёт проверки; submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text),
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
    'Принимает сданную домашку (Accepted): правка ответа закрыта. comment — отзыв. Отказы: invalid_transition; ' +
    'submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text).optional(),
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
    'Отменяет приём домашки с комментарием comment: статус Returned, ученик снова может править. Отказы: comment_required; ' +
    'invalid_transition — не принята; submission_not_found.',
  input: z.object({
    submission: SubmissionArg,
    comment: z.string().max(INPUT_LIMITS.text),
  }),
  output: ReviewSubmission,
  annotations: WRITE,
  studentText: ['', 'versions[]', 'files[]'],
  refusals: REVIEW_REFUSALS,
});
