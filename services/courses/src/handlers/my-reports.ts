import { my_reports, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { student } from '../access.ts';
import { studentReportView } from '../domain/report-view.ts';
import type { CoursesDeps } from '../store.ts';

/** my_reports shows at most this many of the student's newest reports (a reply must stay small). */
export const MY_REPORTS_LIMIT = 200;

/** my_reports: the caller's own reports, newest first; nobody else's. */
export function myReportsHandler({ store: s }: CoursesDeps) {
  return endpoint(my_reports, async (args, ctx) => {
    const who = student(ctx);
    const rows = await s.reports.ofStudent(who.user, args.course, MY_REPORTS_LIMIT);
    const inherited = await s.reports.inheritedResolutions(rows);
    return ok({ reports: rows.map((r) => studentReportView(r, inherited)) });
  });
}
