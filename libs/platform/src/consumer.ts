import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { ConsumerMessages, NatsConnection } from 'nats';
import {
  type EventEnvelope,
  ensureConsumer,
  ensureStream,
  filtersManySubjects,
  streamNames,
  subjectMatches,
} from './events.ts';
import type { Logger } from './log.ts';

export interface ConsumerOptions<DB> {
  nc: NatsConnection;
  prefix: string;
  /** Durable name: one per consuming purpose; replicas with the same name share the work. */
  durable: string;
  /** Event subjects without prefix, e.g. `evt.courses.course_published`. */
  subjects: string[];
  /** The consumer's own database: the processed-message mark is written with the handler's effects. */
  db: Kysely<DB>;
  log: Logger;
  /** Applies one event inside the transaction that also marks it processed. */
  handle(trx: Transaction<DB>, event: EventEnvelope): Promise<void>;
}

/** A running durable consumer. */
export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * Consumes events at least once and applies each exactly once: the message id is inserted into
 * `processed_events` in the handler's transaction, so a redelivery after a crash changes nothing.
 * A handler error rolls back and the message is redelivered after a delay.
 */
export async function startConsumer<DB>(opts: ConsumerOptions<DB>): Promise<RunningConsumer> {
  const jsm = await ensureStream(opts.nc, opts.prefix);
  const names = streamNames(opts.prefix);
  const filtered = await ensureConsumer(jsm, opts.prefix, opts.durable, opts.subjects, filtersManySubjects(opts.nc));
  // Without a server-side filter (NATS < 2.10, several subjects) other events are acknowledged and skipped.
  const wanted = filtered ? null : opts.subjects.map(names.subject);
  const consumer = await opts.nc.jetstream().consumers.get(names.stream, opts.durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 64 });
  const done = (async () => {
    for await (const m of messages) {
      if (wanted && !wanted.some((s) => subjectMatches(s, m.subject))) {
        m.ack();
        continue;
      }
      let event: EventEnvelope;
      try {
        event = m.json<EventEnvelope>();
        // Without an id the event can never be marked processed: it would be redelivered forever.
        if (typeof event?.id !== 'string' || !event.id) throw new Error('event without id');
      } catch {
        opts.log.error({ subject: m.subject }, 'consumer: malformed event dropped');
        m.term();
        continue;
      }
      try {
        await opts.db.transaction().execute(async (trx) => {
          const res = await sql`insert into processed_events (consumer, msg_id) values (${opts.durable}, ${event.id})
            on conflict do nothing`.execute(trx);
          if (Number(res.numAffectedRows ?? 0) === 0) return;
          await opts.handle(trx, event);
        });
        m.ack();
      } catch (err) {
        opts.log.warn({ err, event: event.type }, 'consumer: handler failed, redelivering');
        m.nak(1000);
      }
    }
  })();
  // A broken iteration (consumer deleted, connection lost) must not become an unhandled rejection.
  done.catch((err) => opts.log.error({ err, durable: opts.durable }, 'consumer stopped'));
  return {
    async stop() {
      await messages.close();
      await done;
    },
  };
}
