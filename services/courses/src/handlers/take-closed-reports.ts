import { coursesTakeClosedReports, ok } from '@studium/contracts';
import { endpoint, requireActsFor } from '@studium/platform';
import { studentReportView } from '../domain/report-view.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * courses.take_closed_reports (start_lesson → courses): the student's closed reports on the
 * course not delivered yet, marked delivered in the same statement, so each arrives once.
 */
export function takeClosedReportsHandler({ store }: CoursesDeps) {
  return endpoint(
    coursesTakeClosedReports,
    async (args, ctx) => {
      requireActsFor(ctx, args.user);
      // Taken and marked in one statement (start_lesson asks on every start; usually none).
      const rows = await store.reports.takeClosed(args.user, args.course);
      const inherited = rows.length ? await store.reports.inheritedResolutions(rows) : new Map<number, string>();
      return ok({ reports: rows.map((r) => studentReportView(r, inherited)) });
    },
    // lessons passes on the student of its start_lesson.
    { forwarded: true },
  );
}
