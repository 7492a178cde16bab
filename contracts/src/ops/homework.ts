import { z } from 'zod';
import { defineOperation } from '../tool.ts';
import { ReviewItem } from '../tools/curator/homework-review.ts';
import { HomeworkFile } from '../tools/shapes.ts';

/**
 * A student's homework in an organization's space as the organization's manager sees it
 * (reporting's student_detail → homework): the current answers with their files, whose download
 * URLs are issued only when `viewer` manages the organization of `space` (checked with enrollment)
 * — otherwise a 403 failure. The personal space is the student's own: never shown to a manager.
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
