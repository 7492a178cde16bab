import type { OrgReportRow } from '../repositories/report.repository.ts';
import { share } from './space.ts';

/** A read-model row as org_report (and its CSV export and view) shows it. */
export function orgReportRow(r: OrgReportRow) {
  return {
    user: r.user,
    full_name: r.full_name,
    organization: r.organization,
    course: r.course,
    course_title: r.course_title,
    status: r.status,
    progress: share(r.lessons_passed, r.lessons_total),
    lessons_passed: r.lessons_passed,
    lessons_total: r.lessons_total,
    deadline: r.deadline,
    mandatory: r.mandatory,
    overdue: r.overdue,
    last_activity: r.last_activity,
    document: { blocks_total: r.blocks_total, blocks_filled: r.blocks_filled },
  };
}
