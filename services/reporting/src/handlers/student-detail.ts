import { HomeworkStatus, ObjectiveStatus, ok, student_detail } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { share } from '../domain/space.ts';
import { notYourStudent } from '../refusals.ts';
import type { ReportRepository } from '../repositories/report.repository.ts';

/** How many sessions the detail lists, newest first. */
export const DETAIL_SESSIONS = 100;

/**
 * student_detail: one employee of the caller's organizations — the courses those organizations
 * assigned (or the employee took from their catalogs) with deadlines; the sessions and quiz
 * attempts of those courses (progress is shared by every space, so a personal session on such a
 * course counts); homework statuses of those organizations' spaces. The read models hold no
 * items, evidence, answers, conversations or notes, so none can leak here.
 */
export function studentDetailHandler(reports: ReportRepository) {
  return endpoint(student_detail, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no caller');
    const user = args.user.trim();
    return reports.read(async (g) => {
      const managed = (await reports.orgsOf(g, principal.user)).filter((o) => o.role === 'manager');
      const theirs = await reports.orgsOf(g, user);
      const common = theirs.filter((o) => managed.some((m) => m.organization === o.organization));
      if (common.length === 0) return notYourStudent(user);
      const orgs = common.map((o) => o.organization);
      const enrollments = await reports.myEnrollments(g, user, orgs);
      const courses = [...new Set(enrollments.map((e) => e.course))];
      const [fullName, sessions, attempts, homework] = await Promise.all([
        reports.fullName(g, user),
        reports.sessions(g, user, { courses }, DETAIL_SESSIONS),
        reports.attempts(g, user, courses),
        reports.homework(g, user, courses, orgs),
      ]);
      return ok({
        user,
        full_name: fullName ?? user,
        organizations: common.map((o) => ({ organization: o.organization, title: o.title, suspended: o.suspended })),
        courses: enrollments.map((e) => ({
          course: e.course,
          title: e.title,
          organization: e.organization ?? e.space,
          deadline: e.deadline,
          mandatory: e.mandatory ?? false,
          overdue: e.overdue,
          progress: share(e.lessons_passed, e.lessons_total),
          completed: e.completed,
          last_activity: e.last_activity,
        })),
        sessions: sessions.map((s) => ({
          session: s.session,
          course: s.course,
          lesson: s.lesson,
          lesson_title: s.lesson_title ?? s.lesson_key,
          status: s.status,
          started_at: s.started_at,
          objectives: s.objectives.map((o) => ({ ...o, status: objectiveStatus(o.status) })),
        })),
        attempts: attempts.map((a) => ({
          attempt: a.attempt,
          course: a.course,
          lesson: a.lesson,
          lesson_title: a.lesson_title ?? a.lesson,
          number: a.number,
          status: a.status,
          score: a.status === 'Cancelled' ? 0 : a.score,
          passed: a.status === 'Cancelled' ? false : a.passed,
          finished_at: a.finished_at,
        })),
        homework: homework.map((h) => ({
          course: h.course,
          lesson: h.lesson,
          lesson_title: h.lesson_title ?? h.lesson,
          organization: h.space,
          status: homeworkStatus(h.status),
          version: h.version,
          due_at: h.due_at,
          updated_at: h.updated_at,
        })),
      });
    });
  });
}

/** An objective status as the contract names it; an unknown one (a newer lessons service) reads as touched. */
function objectiveStatus(status: string): 'not_started' | 'touched' | 'covered' {
  const parsed = ObjectiveStatus.safeParse(status);
  return parsed.success ? parsed.data : 'touched';
}

/** A homework status as the contract names it (the event schema allows only these). */
function homeworkStatus(status: string): 'Assigned' | 'Submitted' | 'Returned' | 'Accepted' {
  const parsed = HomeworkStatus.safeParse(status);
  return parsed.success ? parsed.data : 'Assigned';
}
