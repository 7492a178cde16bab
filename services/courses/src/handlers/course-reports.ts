import { course_reports, LIMITS, ok } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import type { ReportStatus } from '../db.ts';
import { isReportKind, REPORT_FILTERS } from '../domain/report-rules.ts';
import { curatorReportView } from '../domain/report-view.ts';
import { courseNotFound, unknownReportKind, unknownReportStatus } from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

type Filter = (typeof REPORT_FILTERS)[number];

/** The statuses a course_reports filter stands for. */
function statusesOf(filter: Filter): readonly ReportStatus[] {
  return filter === 'open' ? ['new', 'in_progress'] : [filter];
}

/** course_reports: the course's fifty freshest reports by kind, lesson key and status; never who sent them. */
export function courseReportsHandler({ store: s }: CoursesDeps) {
  return endpoint(course_reports, async (args, ctx) => {
    author(ctx);
    if (args.kind !== undefined && !isReportKind(args.kind)) return unknownReportKind(args.kind);
    const status = args.status;
    if (status !== undefined && !(REPORT_FILTERS as readonly string[]).includes(status)) {
      return unknownReportStatus(status, false);
    }
    if (!(await s.courses.find(args.course))) return courseNotFound(args.course);
    const rows = await s.reports.ofCourse(
      args.course,
      {
        kind: args.kind,
        lesson: args.lesson,
        statuses: status === undefined ? undefined : statusesOf(status as Filter),
      },
      LIMITS.courseReports,
    );
    return ok({ reports: rows.map(curatorReportView) });
  });
}
