import { lessonId, ok, report_issue } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { student } from '../access.ts';
import { indexRelease } from '../domain/release-index.ts';
import { isReportKind, reportObjective, reportText } from '../domain/report-rules.ts';
import { notYourSession, questionMismatch, reportTextRequired, unknownReportKind } from '../refusals.ts';
import type { SessionRow } from '../repositories/session.repository.ts';
import type { CoursesDeps, Store } from '../store.ts';

/** How long report_issue waits for a session whose session_started event is still on its way. */
const SESSION_WAIT_MS = 1500;

/**
 * Courses learns of sessions from lessons' events; a report right after start_lesson may arrive
 * before the event, so an unknown session is looked up again for a moment before it is refused.
 */
async function findSession(s: Store, session: string): Promise<SessionRow | undefined> {
  const until = Date.now() + SESSION_WAIT_MS;
  for (;;) {
    const row = await s.sessions.find(session);
    if (row || Date.now() >= until) return row;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * report_issue: the session's owner reports on its lesson. Course, lesson and space come from
 * the session; release is the course's active release now; a question must be of this lesson's quiz.
 */
export function reportIssueHandler({ store: s, transaction }: CoursesDeps) {
  return endpoint(report_issue, async (args, ctx) => {
    const who = student(ctx);
    if (!isReportKind(args.kind)) return unknownReportKind(args.kind);
    const text = reportText(args.text);
    if (!text) return reportTextRequired();
    const session = await findSession(s, args.session);
    if (!session || session.user_id !== who.user) return notYourSession(args.session);
    // The quiz the agent saw is the session's release's; the report is filed against the active one.
    const [active, ofSession] = await Promise.all([
      s.releases.active(session.course),
      session.release ? s.releases.withContent(session.course, session.release) : undefined,
    ]);
    const content = (ofSession ?? active)?.content;
    const lesson = content ? indexRelease(content).lessons.get(session.lesson_key)?.lesson : undefined;
    const question = args.question?.trim() || null;
    if (question !== null && !lesson?.quiz?.questions.some((q) => q.key === question)) {
      return questionMismatch(question, session.lesson_key);
    }
    return transaction(async (t) => {
      const row = await t.reports.insert({
        course: session.course,
        user_id: who.user,
        session: session.session,
        space: session.space,
        lesson: lessonId(session.course, session.lesson_key),
        lesson_key: session.lesson_key,
        lesson_title: lesson?.title ?? null,
        release: active?.id ?? null,
        kind: args.kind,
        text,
        objective: reportObjective(args.objective),
        question_key: question,
      });
      await t.emit('courses.report_created', {
        report: row.id,
        user: row.user_id,
        course: row.course,
        lesson: row.lesson,
        lesson_key: row.lesson_key,
        session: session.session,
        space: row.space,
        kind: row.kind,
        release: row.release,
        objective: row.objective,
        question_key: row.question_key,
        at: row.created_at,
      });
      return ok({ report: row.id, kind: row.kind });
    });
  });
}
