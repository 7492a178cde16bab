import { ORG_REPORT_PAGE, ok, org_report } from '@studium/contracts';
import { endpoint, Failure } from '@studium/platform';
import { orgReportRow } from '../domain/rows.ts';
import type { ReportRepository } from '../repositories/report.repository.ts';

/** The page a caller asked for, clamped: paging is beyond the spec, so it never refuses. */
export function page(args: { limit?: number; offset?: number }, defaultLimit: number) {
  const limit = Math.min(ORG_REPORT_PAGE.max, Math.max(1, args.limit ?? defaultLimit));
  const offset = Math.max(0, args.offset ?? 0);
  return { limit, offset };
}

/**
 * org_report: rows person × course of every organization the caller manages, with a summary and
 * paging. A caller who manages nothing gets an empty report, not a refusal (spec 000). Members
 * who left an organization are not in its report; a suspended organization still is (flagged).
 */
export function orgReportHandler(reports: ReportRepository, defaultLimit: number = ORG_REPORT_PAGE.default) {
  return endpoint(org_report, async (args, { principal }) => {
    if (!principal) throw new Failure(401, 'no caller');
    const { limit, offset } = page(args, defaultLimit);
    return reports.read(async (g) => {
      const managed = (await reports.orgsOf(g, principal.user)).filter((o) => o.role === 'manager');
      const { rows, summary } = await reports.orgReport(g, {
        orgs: managed.map((o) => o.organization),
        course: args.course,
        status: args.status,
        offset,
        limit,
      });
      const { matching, ...counts } = summary;
      return ok({
        organizations: managed.map((o) => ({ organization: o.organization, title: o.title, suspended: o.suspended })),
        summary: counts,
        total: matching,
        offset,
        next_offset: offset + rows.length < matching ? offset + rows.length : null,
        rows: rows.map(orgReportRow),
      });
    });
  });
}
