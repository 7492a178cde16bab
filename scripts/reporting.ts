// `npm run studium -- reporting <command>`: rebuild the reporting read models from the event
// stream, or export org_report as CSV. Runs beside the live reporting service.
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  BaseConfig,
  createLogger,
  ensureDatabase,
  loadConfig,
  migrate,
  natsOptions,
  openDatabase,
  PLATFORM_MIGRATIONS,
} from '@studium/platform';
import { connect } from 'nats';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS as ENROLLMENT_MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import { ReportingAdmin } from '../services/reporting/src/admin.ts';
import { MIGRATIONS } from '../services/reporting/src/app.ts';
import { SCHEMA } from '../services/reporting/src/config.ts';
import type { ReportingDb } from '../services/reporting/src/db.ts';

export const REPORTING_USAGE = `  reporting rebuild                                rebuild the reports from the start of the event stream and swap
                                                   them in (safe while the reporting service runs)
  reporting announce                               have enrollment announce its current users, organizations, memberships
                                                   and enrollments as events (once, for data made before those events existed)
  reporting export <org>... [--course ID] [--status not_started|in_progress|completed] [--out FILE]
                                                   org_report of the organizations as CSV (stdout without --out)
`;

/** Runs one reporting command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { course: { type: 'string' }, status: { type: 'string' }, out: { type: 'string' } },
  });
  const [command, ...orgs] = positionals;
  if (command !== 'rebuild' && command !== 'export' && command !== 'announce') {
    console.error(`usage:\n${REPORTING_USAGE}`);
    return 1;
  }
  if (command === 'export' && orgs.length === 0) {
    console.error('usage: studium reporting export <org>... [--course ID] [--status STATUS] [--out FILE]');
    return 1;
  }
  const config = loadConfig(BaseConfig);
  const log = createLogger('reporting-cli', process.env.LOG_LEVEL ?? 'warn');
  await ensureDatabase(config.DATABASE_URL);
  const database = openDatabase<ReportingDb>(config.DATABASE_URL, SCHEMA, 3);
  try {
    await migrate(database.pool, SCHEMA, [PLATFORM_MIGRATIONS, MIGRATIONS]);
    const admin = new ReportingAdmin(database, log);
    if (command === 'announce') {
      const enrollment = openDatabase<EnrollmentDb>(config.DATABASE_URL, 'enrollment', 2);
      try {
        await migrate(enrollment.pool, 'enrollment', [PLATFORM_MIGRATIONS, ENROLLMENT_MIGRATIONS]);
        const n = await new EnrollmentAdmin(enrollment.db).announceState();
        console.log(`${n} events written to enrollment's outbox; its relay publishes them`);
      } finally {
        await enrollment.close();
      }
      return 0;
    }
    if (command === 'rebuild') {
      const nc = await connect(natsOptions(config, 'reporting-rebuild'));
      try {
        const r = await admin.rebuild(nc, config.SUBJECT_PREFIX);
        console.log(
          `read models rebuilt: ${r.generation} replaces ${r.previous} (${r.read} messages, ${r.applied} events, ${r.ms} ms)`,
        );
      } finally {
        await nc.drain();
      }
      return 0;
    }
    const out = values.out ? createWriteStream(values.out) : null;
    const write = (chunk: string) =>
      new Promise<void>((resolve, reject) => {
        const target = out ?? process.stdout;
        target.write(chunk, (err) => (err ? reject(err) : resolve()));
      });
    const n = await admin.exportCsv(orgs, { course: values.course, status: values.status }, write);
    if (out) {
      await new Promise<void>((resolve) => out.end(resolve));
      console.error(`${n} rows written to ${values.out}`);
    }
    return 0;
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    await database.close();
  }
}
