// A consumer in a process of its own, for the crash test (consumer-crash.test.ts): it applies the
// pending events of CRASH_SUBJECT on durable CRASH_DURABLE into `tally` and, at the point of its
// first batch named by CRASH_AT (`applied`: in the transaction, before COMMIT; `committed`: after
// COMMIT, before the acks), prints one line `crash point {report}` and waits there for its SIGKILL.
import { createLogger, type EventEnvelope, openDatabase, startConsumer } from '@studium/platform';
import { connect } from 'nats';
import type { EventDb } from './event-schema.ts';

const env = process.env;
const at = env.CRASH_AT;
if (at !== 'applied' && at !== 'committed') throw new Error('CRASH_AT must be applied or committed');
const nc = await connect({ servers: env.NATS_URL, name: 'crash-consumer' });
const database = openDatabase<EventDb>(env.DATABASE_URL as string, env.CRASH_SCHEMA as string, 2);
const halt = async (report: { events: string[]; applied: string[] }) => {
  // Whatever the consumer sent before this point (an ack too early) reaches the server before the kill.
  await nc.flush();
  process.stdout.write(`crash point ${JSON.stringify(report)}\n`);
  await new Promise<void>(() => {});
};
await startConsumer<EventDb>({
  nc,
  prefix: env.SUBJECT_PREFIX as string,
  durable: env.CRASH_DURABLE as string,
  subjects: [env.CRASH_SUBJECT as string],
  db: database.db,
  log: createLogger('crash-consumer', 'warn'),
  async handle(trx, event: EventEnvelope) {
    await trx
      .insertInto('tally')
      .values({ event_id: event.id, note: (event.data as { note: string }).note })
      .execute();
  },
  hooks: at === 'applied' ? { applied: halt } : { committed: halt },
});
process.stdout.write('consumer started\n');
