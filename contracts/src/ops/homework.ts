import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { ReviewItem } from '../tools/curator/homework-review.ts';
import { HomeworkFile, ObjectiveProgress } from '../tools/shapes.ts';

/**
 * A student's homework in an organization's space as the organization's manager sees it
 * (reporting's student_detail → homework): the current answers with their files, whose download
 * URLs are issued only when `viewer` is the caller (the request's signed principal) and manages the
 * organization of `space` (checked with enrollment) — otherwise a 403 failure. The personal space is the student's own: never shown to a manager.
 */
export const homeworkOfStudent = defineOperation({
  subject: 'homework.student_homework',
  input: z.object({ viewer: z.string(), student: z.string(), space: z.string() }),
  output: z.object({
    space: z.string(),
    items: z.array(
      ReviewItem.extend({
        answer: z.string().nullable(),
        files: z.array(HomeworkFile),
        last_comment: z.string().nullable(),
      }),
    ),
  }),
});

/**
 * What homework asks lessons for update_artifact's mid-session progress (homework → lessons;
 * served by the lessons service): the student's open session on `course` in `space` — the one
 * with the latest activity, not idle longer than start_lesson would continue it, on a live run —
 * with its lesson's objectives and their statuses, without items. `session: null` and no
 * objectives when there is none. Optional for homework: no answer in time leaves the field out.
 */
export const sessionProgress = defineOperation({
  subject: 'lessons.session_progress',
  input: z.object({ user: z.string(), course: z.string(), space: z.string() }),
  output: z.object({
    session: z.string().nullable(),
    lesson: z.string().nullable(),
    objectives: z.array(ObjectiveProgress),
  }),
});

/**
 * The edge's check of a store_homework_file call before it stores a byte (homework answers it):
 * the caller's access to the lesson, the homework's mode and state, the count (with the files the
 * answer already has), the sizes, the types by content and the student's quota. `offered` is the
 * number of entries in the call; `files` holds at most the first LIMITS.homeworkFiles + 1 of them;
 * `answer_length` is checked as the text store_homework_file would save with them. Data `{}`
 * when the files may be stored; the refusal store_homework_file would give otherwise.
 */
export const checkHomeworkFiles = defineOperation({
  subject: 'homework.check_homework_files',
  input: z.object({
    lesson: z.string().max(128),
    space: z.string().max(128).optional(),
    offered: z.number().int().min(0),
    /** Characters of the text handed in with the files (trimmed), when the call has one. */
    answer_length: z.number().int().min(0).optional(),
    files: z
      .array(
        z.union([
          z.object({ name: z.string().max(255), size: z.number().int().min(0), head: z.string().max(1024) }),
          z.object({ invalid: z.literal(true) }),
        ]),
      )
      .max(64),
  }),
  output: z.object({}),
});
