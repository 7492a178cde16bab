import { coursesTakeClosedReports, ok } from '@studium/contracts';
import { checkActsFor, endpoint } from '@studium/platform';
import { studentReportView } from '../domain/report-view.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * courses.take_closed_reports (start_lesson → courses): the student's closed reports on the
 * course not delivered yet, marked delivered in the same transaction, so each arrives once.
 */
export function takeClosedReportsHandler({ transaction }: CoursesDeps) {
  return endpoint(
    coursesTakeClosedReports,
    async (args, ctx) => {
      checkActsFor(ctx, args.user);
      return transaction(async (s) => {
        const rows = await s.reports.takeClosed(args.user, args.course);
        const inherited = await s.reports.inheritedResolutions(rows);
        return ok({ reports: rows.map((r) => studentReportView(r, inherited)) });
      });
    },
    // lessons passes on the student of its start_lesson.
    { forwarded: true },
  );
}
