// Reporting's live consumer in a process of its own, for the crash test (crash.test.ts): at the
// point of its first batch named by CRASH_AT (`applied`: in the transaction, before COMMIT;
// `committed`: after COMMIT, before the acks) it prints `crash point {report}` and waits there
// for its SIGKILL. The schema is migrated and its generation made by the test.
import { type BatchReport, createLogger, type NatsSettings, natsOptions, openDatabase } from '@studium/platform';
import { connect } from 'nats';
import { SCHEMA } from '../../src/config.ts';
import type { ReportingDb } from '../../src/db.ts';
import { startLiveConsumer } from '../../src/live-consumer.ts';

const env = process.env;
const at = env.CRASH_AT;
if (at !== 'applied' && at !== 'committed') throw new Error('CRASH_AT must be applied or committed');
const nc = await connect(natsOptions(env as unknown as NatsSettings, 'crash-reporting'));
const database = openDatabase<ReportingDb>(env.DATABASE_URL as string, SCHEMA, 2);
const halt = async (report: BatchReport) => {
  // Whatever the consumer sent before this point (an ack too early) reaches the server before the kill.
  await nc.flush();
  process.stdout.write(`crash point ${JSON.stringify(report)}\n`);
  await new Promise<void>(() => {});
};
await startLiveConsumer({
  nc,
  prefix: env.SUBJECT_PREFIX as string,
  db: database.db,
  log: createLogger('crash-reporting', 'warn'),
  hooks: at === 'applied' ? { applied: halt } : { committed: halt },
});
process.stdout.write('consumer started\n');
