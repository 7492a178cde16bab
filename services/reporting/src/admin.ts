import { ORG_REPORT_STATUSES } from '@studium/contracts';
import type { Database, Logger } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { ReportingDb } from './db.ts';
import { csvHeader, csvLine } from './domain/csv.ts';
import { orgReportRow } from './domain/rows.ts';
import { ensureGeneration } from './generation.ts';
import { type RebuildResult, rebuild } from './rebuild.ts';
import { ReportRepository } from './repositories/report.repository.ts';

/** Administrative operations of reporting (the admin CLI): rebuild from the stream, CSV export. */
export class ReportingAdmin {
  constructor(
    private readonly database: Database<ReportingDb>,
    private readonly log: Logger,
  ) {}

  /** Rebuilds every read model from the start of the stream and swaps it in (safe while the service runs). */
  async rebuild(nc: NatsConnection, prefix: string): Promise<RebuildResult> {
    await ensureGeneration(this.database.db, this.database.pool);
    return rebuild({ nc, prefix, database: this.database, log: this.log });
  }

  /**
   * Writes org_report of the given organizations as CSV (every row, in the report's order),
   * page by page so a large organization never sits in memory at once. Returns the row count.
   */
  async exportCsv(
    orgs: string[],
    filter: { course?: string; status?: string },
    write: (chunk: string) => void | Promise<void>,
  ): Promise<number> {
    const status = filter.status as (typeof ORG_REPORT_STATUSES)[number] | undefined;
    if (status && !ORG_REPORT_STATUSES.includes(status)) {
      throw new Error(`status must be one of ${ORG_REPORT_STATUSES.join(', ')}: ${status}`);
    }
    await ensureGeneration(this.database.db, this.database.pool);
    const reports = new ReportRepository(this.database.db);
    await write(csvHeader());
    return reports.read(async (g) => {
      let offset = 0;
      for (;;) {
        const { rows } = await reports.orgReport(g, { orgs, course: filter.course, status, offset, limit: 5000 });
        if (rows.length) await write(rows.map((r) => csvLine(orgReportRow(r))).join(''));
        offset += rows.length;
        if (rows.length < 5000) return offset;
      }
    });
  }
}
