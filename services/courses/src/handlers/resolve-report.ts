import { ok, resolve_report } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { author } from '../access.ts';
import {
  allowedTransitions,
  cut,
  isClosed,
  isResolveStatus,
  parseReportNumber,
  RESOLUTION_LIMIT,
} from '../domain/report-rules.ts';
import {
  duplicateOfRequired,
  invalidDuplicateOf,
  invalidReportTransition,
  reportNotFound,
  reportResolutionRequired,
  unknownReportStatus,
} from '../refusals.ts';
import type { CoursesDeps } from '../store.ts';

/**
 * resolve_report: moves a report by the spec's transitions and overwrites the answer to the
 * student; a closing (fixed, rejected, duplicate) sets resolved_at and makes the report reach the
 * student again through closed_reports.
 */
export function resolveReportHandler({ transaction }: CoursesDeps) {
  return endpoint(resolve_report, async (args, ctx) => {
    const who = author(ctx);
    const id = parseReportNumber(args.report);
    if (id === null) return reportNotFound(args.report);
    const status = args.status;
    if (!isResolveStatus(status)) return unknownReportStatus(status, true);
    const resolution = cut((args.resolution ?? '').trim(), RESOLUTION_LIMIT).trim() || null;
    return transaction(async (s) => {
      const report = await s.reports.lock(id);
      if (!report) return reportNotFound(args.report);
      const allowed = allowedTransitions(report.status);
      if (!allowed.includes(status)) {
        return invalidReportTransition(id, report.status, status, allowed, isClosed(report.status));
      }
      if ((status === 'fixed' || status === 'rejected') && !resolution) return reportResolutionRequired(id, status);
      let duplicateOf: number | null = null;
      if (status === 'duplicate') {
        if (args.duplicate_of === undefined) return duplicateOfRequired(id);
        duplicateOf = parseReportNumber(args.duplicate_of);
        const original = duplicateOf === null ? undefined : await s.reports.find(duplicateOf);
        const reason = !original
          ? 'not_found'
          : original.course !== report.course
            ? 'other_course'
            : original.id === id || (await s.reports.leadsTo(original.id, id))
              ? 'self'
              : null;
        if (reason) return invalidDuplicateOf(id, args.duplicate_of, reason);
      }
      const closed = isClosed(status);
      const at = new Date().toISOString();
      const row = await s.reports.resolve(id, {
        status,
        resolution,
        resolved_at: closed ? at : null,
        resolved_by: who.user,
        duplicate_of: duplicateOf,
      });
      await s.emit('courses.report_resolved', {
        report: id,
        user: row.user_id,
        course: row.course,
        status,
        previous_status: report.status,
        duplicate_of: row.duplicate_of,
        resolved_at: row.resolved_at,
        by: who.user,
        at,
      });
      return ok({
        report: id,
        status: row.status,
        resolution: row.resolution,
        resolved_at: row.resolved_at,
        duplicate_of: row.duplicate_of,
      });
    });
  });
}
