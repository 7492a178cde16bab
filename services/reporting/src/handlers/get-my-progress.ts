import { get_my_progress, ok } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { resolveProgressSpace, share } from '../domain/space.ts';
import type { ReportRepository } from '../repositories/report.repository.ts';

/** How many recent sessions the summary lists. */
export const RECENT_SESSIONS = 10;

/**
 * get_my_progress: the student's summary in a space from the read models — courses with deadline,
 * overdue, share of lessons passed and the fill of each course document of that space; the latest
 * sessions with status and start date. A course the student has in several spaces (personal
 * view) appears once: the organization's assignment first, then the earliest deadline.
 */
export function getMyProgressHandler(reports: ReportRepository) {
  return endpoint(get_my_progress, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no caller');
    return reports.read(async (g) => {
      const orgs = await reports.orgsOf(g, principal.user);
      const resolved = resolveProgressSpace(orgs, principal.space, args.space);
      if (!resolved.ok) return resolved;
      const { scope } = resolved;
      const rows = await reports.myEnrollments(g, principal.user, scope.spaces, scope.space);
      const byCourse = new Map<string, (typeof rows)[number]>();
      for (const r of rows) {
        const held = byCourse.get(r.course);
        if (!held || preferred(r, held)) byCourse.set(r.course, r);
      }
      const courses = [...byCourse.values()].map((r) => ({
        course: r.course,
        title: r.title,
        organization: r.organization,
        mandatory: r.self_enrolled ? null : (r.mandatory ?? false),
        deadline: r.deadline,
        overdue: r.overdue,
        progress: share(r.lessons_passed, r.lessons_total),
        lessons_passed: r.lessons_passed,
        lessons_total: r.lessons_total,
        completed: r.completed,
        lessons_failed: r.lessons_failed,
        finished: r.finished,
        documents: r.documents,
      }));
      const sessions = await reports.sessions(g, principal.user, { spaces: scope.spaces }, RECENT_SESSIONS);
      return ok({
        space: scope.space,
        courses_count: courses.length,
        overdue_count: courses.filter((c) => c.overdue).length,
        courses,
        recent_sessions: sessions.map((s) => ({
          session: s.session,
          course: s.course,
          lesson: s.lesson,
          lesson_title: s.lesson_title ?? s.lesson_key,
          space: s.space,
          status: sessionStatus(s.status),
          started_at: s.started_at,
        })),
      });
    });
  });
}

/**
 * The session's own status, as lessons keeps it (open, closed, abandoned), from the read model's
 * (which also tells how far the lesson went in it: covered while still open, passed when closed).
 */
export function sessionStatus(stored: string): 'open' | 'closed' | 'abandoned' {
  if (stored === 'passed') return 'closed';
  if (stored === 'abandoned') return 'abandoned';
  return 'open';
}

type Row = { self_enrolled: boolean; deadline: string | null };

/** An assignment beats a self-enrollment; between assignments the earlier deadline wins. */
function preferred(a: Row, b: Row): boolean {
  if (a.self_enrolled !== b.self_enrolled) return !a.self_enrolled;
  if (!a.deadline) return false;
  return !b.deadline || a.deadline < b.deadline;
}
