import { course_notes, NOTE_STATUSES, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import type { NoteStatus } from '../db.ts';
import { notePlace } from '../domain/note-view.ts';
import { indexRelease } from '../domain/release-index.ts';
import { courseNotFound, invalidNote } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * course_notes: the curator's notes, oldest first, labelled by the active release. A course
 * without release is no refusal: its notes are only archived ones (missing: true).
 */
export function courseNotesHandler({ store: s }: CoursesDeps) {
  return endpoint(course_notes, async (args, ctx) => {
    author(ctx);
    const status = args.status === undefined ? 'open' : args.status;
    if (status !== null && !(NOTE_STATUSES as readonly string[]).includes(status)) {
      return invalidNote({ status });
    }
    if (!(await s.courses.find(args.course))) return courseNotFound(args.course);
    const [active, rows] = await Promise.all([
      s.releases.active(args.course),
      s.notes.list(args.course, { status: status as NoteStatus | null, lesson: args.lesson }),
    ]);
    const index = active && rows.length ? indexRelease(active.content) : null;
    return ok({
      notes: rows.map((n) => ({
        note: n.id,
        course: n.course,
        target: n.target,
        release: n.release,
        version: n.version,
        lesson_key: n.lesson_key,
        ...notePlace(n.target, n.release, index),
        status: n.status,
        waiting_on: n.waiting_on,
        quote: n.quote,
        text: n.text,
        author: n.author,
        created_at: n.created_at,
        replies: n.replies,
      })),
    });
  });
}
