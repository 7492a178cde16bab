import { ORG_REPORT_PAGE } from '@studium/contracts';
import type { App, ServiceDeps } from '@studium/platform';
import { ReportingConfig } from './config.ts';
import type { ReportingDb } from './db.ts';
import { ensureGeneration } from './generation.ts';
import { getMyProgressHandler } from './handlers/get-my-progress.ts';
import { orgReportHandler } from './handlers/org-report.ts';
import { studentDetailHandler } from './handlers/student-detail.ts';
import { type LiveConsumer, startLiveConsumer } from './live-consumer.ts';
import { ReportRepository } from './repositories/report.repository.ts';

/** Migrations of the reporting schema (the generation pointer). */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** A started reporting service. */
export interface ReportingApp extends App {
  consumer: LiveConsumer;
}

/**
 * Serves get_my_progress, org_report and student_detail from read models that only the event
 * stream builds (the live consumer); nothing here asks another service at query time.
 */
export async function createApp({
  bus,
  nc,
  database,
  log,
  config,
  metrics,
}: ServiceDeps<ReportingDb>): Promise<ReportingApp> {
  const cfg = ReportingConfig.parse(config ?? {});
  await ensureGeneration(database.db, database.pool);
  const reports = new ReportRepository(database.db);
  const consumer = await startLiveConsumer({
    nc,
    prefix: bus.prefix,
    db: database.db,
    log,
    metrics,
    maxAttempts: cfg.EVENT_MAX_ATTEMPTS,
    retryDelayMs: cfg.EVENT_RETRY_DELAY_MS,
  });
  const service = await bus.serve('reporting', [
    getMyProgressHandler(reports),
    orgReportHandler(reports, Math.min(cfg.REPORT_PAGE_DEFAULT, ORG_REPORT_PAGE.max)),
    studentDetailHandler(reports),
  ]);
  return {
    consumer,
    async stop() {
      await service.stop();
      await consumer.stop();
    },
  };
}
