import type { StudentReportView } from '@studium/contracts';
import type { z } from 'zod';
import type { ReportRow } from '../repositories/report.repository.ts';

/**
 * A report as the student sees it (my_reports, closed_reports): a duplicate without its own answer
 * shows the answer of the report it duplicates (`inherited`).
 */
export function studentReportView(r: ReportRow, inherited: Map<number, string>): z.infer<typeof StudentReportView> {
  return {
    id: r.id,
    kind: r.kind,
    course: r.course,
    lesson: r.lesson,
    lesson_title: r.lesson_title,
    objective: r.objective,
    text: r.text,
    created_at: r.created_at,
    status: r.status,
    resolution: r.resolution ?? inherited.get(r.id) ?? null,
    resolved_at: r.resolved_at,
    duplicate_of: r.duplicate_of,
  };
}

/** A report as the course's curators see it (course_reports): never who sent it. */
export function curatorReportView(r: ReportRow) {
  return {
    id: r.id,
    kind: r.kind,
    text: r.text,
    created_at: r.created_at,
    release: r.release,
    lesson_key: r.lesson_key,
    lesson_title: r.lesson_title,
    objective: r.objective,
    question_key: r.question_key,
    status: r.status,
    resolution: r.resolution,
    resolved_at: r.resolved_at,
    duplicate_of: r.duplicate_of,
  };
}
