import { type EventKey, type EventPayload, events } from '@studium/contracts';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { parkDeadLetter } from './dead-letters.ts';
import { type DurablePlan, durablePlan, ensureDurable, RETIRED_DURABLE_IDLE_MS } from './durables.ts';
import { type EventEnvelope, ensureStream, filtersManySubjects, keepWorking, streamNames } from './events.ts';
import type { Logger } from './log.ts';
import { platformMetrics } from './metrics.ts';
import { allOf, type RunningConsumer, superviseConsumer } from './supervisor.ts';
import { consumeTraced } from './tracing.ts';

export interface ConsumerOptions<DB> {
  nc: NatsConnection;
  prefix: string;
  /**
   * Durable name: one per consuming purpose; replicas with the same name share the work. Several
   * subjects on NATS before 2.10 are read through one durable per subject (`subjectDurable`); the
   * processed marks and dead letters carry this name in either case.
   */
  durable: string;
  /** Event subjects without prefix, e.g. `evt.courses.course_published`. */
  subjects: string[];
  /** The consumer's own database: the processed-message mark is written with the handler's effects. */
  db: Kysely<DB>;
  log: Logger;
  /** Applies one event inside the transaction that also marks it processed. */
  handle(trx: Transaction<DB>, event: EventEnvelope): Promise<void>;
  /** Deliveries of an event before it is parked as a dead letter (default 5). */
  maxAttempts?: number;
  /** Delay before the second delivery of a failed event; doubles each time, up to a minute (default 1000). */
  retryDelayMs?: number;
  /** First delay before restarting a loop that ended; doubles while restarts fail, up to 30 s (default 1000). */
  restartDelayMs?: number;
  /** Registry for the dead-letter and restart counters. */
  metrics?: Registry;
}

/**
 * Thrown by a handler for an event that can never apply (a payload that fails its contract, a
 * publisher bug): the event is parked as a dead letter at once, with this message as the reason,
 * instead of being retried `maxAttempts` times. Replay it after the fix.
 */
export class PoisonEvent extends Error {
  override name = 'PoisonEvent';
}

const MAX_RETRY_DELAY_MS = 60_000;

/**
 * Consumes events at least once and applies each exactly once: the message id is inserted into
 * `processed_events` in the handler's transaction, so a redelivery after a crash changes nothing.
 * A handler error rolls back and the message is redelivered after a growing delay; after
 * `maxAttempts` deliveries (or at once, for a message that cannot be decoded) it is parked in
 * `dead_letters` with the error, counted, and acknowledged, so one poison event never blocks or
 * spins the consumer. A loop that ends without `stop()` (durable deleted, stream gone) is
 * restarted with backoff by `superviseConsumer`, re-creating the durable; `consumersReady` fails
 * meanwhile. The server delivers only the consumer's subjects: one durable filters on all of them
 * (NATS 2.10+), or, on older servers, one durable per subject, each its own supervised loop, with
 * the same handler and marks (see `durablePlan`); the consumer is `running` while all of them are.
 */
export async function startConsumer<DB>(opts: ConsumerOptions<DB>): Promise<RunningConsumer> {
  const names = streamNames(opts.prefix);
  const maxAttempts = opts.maxAttempts ?? 5;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const metrics = opts.metrics ? platformMetrics(opts.metrics) : null;
  const plans = durablePlan(opts.durable, opts.subjects, filtersManySubjects(opts.nc));

  async function open(plan: DurablePlan): Promise<ConsumerMessages> {
    const jsm = await ensureStream(opts.nc, opts.prefix);
    const ensured = await ensureDurable(jsm, opts.prefix, plan);
    if (ensured.created && plan.replaces.length)
      opts.log.info({ durable: plan.name, startedAfter: ensured.startedAfter }, 'consumer: durable created');
    if (ensured.retired.length)
      opts.log.info(
        { durable: plan.name, retired: ensured.retired, idleMs: RETIRED_DURABLE_IDLE_MS },
        'consumer: durables of the other mode retired, the server deletes them once idle',
      );
    const consumer = await opts.nc.jetstream().consumers.get(names.stream, plan.name);
    // Without abort_on_missing_resource a deleted durable leaves the loop waiting forever, silently.
    // Messages buffered here wait with their ack timers running and only the one being handled is
    // beaten (keepWorking): ACK_WAIT_MS (3 s) must cover handling all of them, or a slow patch
    // redelivers them to the other replica too (with 32 and a 150 ms handler, 22 of 40 events went
    // twice). Four fit a handler of up to half a second (per durable: each loop handles its own).
    return consumer.consume({ max_messages: 4, abort_on_missing_resource: true });
  }

  async function park(m: JsMsg, msgId: string | null, error: unknown): Promise<void> {
    const attempts = m.info.redeliveryCount;
    try {
      const id = await parkDeadLetter(opts.db, {
        consumer: opts.durable,
        msgId,
        subject: m.subject,
        payload: m.string(),
        error: error instanceof Error ? error.message : String(error),
        attempts,
      });
      metrics?.deadLetters.labels(opts.durable).inc();
      opts.log.error(
        { err: error, durable: opts.durable, subject: m.subject, deadLetter: id, attempts },
        'consumer: event parked as a dead letter',
      );
      m.term();
    } catch (err) {
      // Not parked (the database is away): keep the event and try again later.
      opts.log.error({ err, durable: opts.durable }, 'consumer: could not park a dead letter, redelivering');
      m.nak(MAX_RETRY_DELAY_MS / 4);
    }
  }

  async function take(m: JsMsg): Promise<void> {
    let event: EventEnvelope;
    try {
      event = m.json<EventEnvelope>();
      // Without an id the event can never be marked processed: it would be redelivered forever.
      if (typeof event?.id !== 'string' || !event.id) throw new Error('event without id');
    } catch (err) {
      await park(m, null, new Error(`malformed event: ${(err as Error).message}`));
      return;
    }
    // The handler may wait on locks or the database: JetStream hears it is alive meanwhile.
    const stopBeat = keepWorking(() => [m]);
    try {
      await opts.db.transaction().execute(async (trx) => {
        const res = await sql`insert into processed_events (consumer, msg_id) values (${opts.durable}, ${event.id})
          on conflict do nothing`.execute(trx);
        if (Number(res.numAffectedRows ?? 0) === 0) return;
        await opts.handle(trx, event);
      });
      m.ack();
    } catch (err) {
      const attempt = m.info.redeliveryCount;
      if (attempt >= maxAttempts || err instanceof PoisonEvent) {
        await park(m, event.id, err);
        return;
      }
      opts.log.warn({ err, event: event.type, attempt }, 'consumer: handler failed, redelivering');
      m.nak(Math.min(retryDelayMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS));
    } finally {
      stopBeat();
    }
  }

  const parts: RunningConsumer[] = [];
  try {
    for (const plan of plans) {
      parts.push(
        await superviseConsumer({
          name: plan.name,
          log: opts.log,
          open: () => open(plan),
          async run(messages) {
            for await (const m of messages) await consumeTraced(m, () => take(m));
          },
          restartDelayMs: opts.restartDelayMs,
          metrics: opts.metrics,
        }),
      );
    }
  } catch (err) {
    await Promise.all(parts.map((p) => p.stop()));
    throw err;
  }
  return parts.length === 1 ? (parts[0] as RunningConsumer) : allOf(parts);
}

/** What a typed consumer does with each event it takes, by the event's key in the contracts catalog. */
export type EventHandlers<DB> = {
  [K in EventKey]?: (trx: Transaction<DB>, data: EventPayload<K>, event: EventEnvelope) => Promise<void>;
};

export interface EventConsumerOptions<DB> extends Omit<ConsumerOptions<DB>, 'subjects' | 'handle'> {
  /** One handler per consumed event, keyed `<service>.<event>` as in `events` of the contracts. */
  on: EventHandlers<DB>;
}

/**
 * A durable consumer of catalog events ({@link startConsumer}) that subscribes to the subjects of
 * the events in `on` and parses each payload with its contract's schema before the handler sees
 * it. A payload that fails the schema is a publisher bug that no redelivery fixes: it is parked in
 * `dead_letters` at once (the reason names the subject and the failing fields), counted, and the
 * consumer goes on with the next event; `dead-letters replay` applies it after the fix.
 */
export async function startEventConsumer<DB>(opts: EventConsumerOptions<DB>): Promise<RunningConsumer> {
  const { on, ...rest } = opts;
  const bySubject = new Map<
    string,
    { key: EventKey; apply: (trx: Transaction<DB>, data: unknown, event: EventEnvelope) => Promise<void> }
  >();
  for (const [key, apply] of Object.entries(on) as [EventKey, EventHandlers<DB>[EventKey]][]) {
    if (!apply) continue;
    bySubject.set(events[key].subject, {
      key,
      apply: apply as (trx: Transaction<DB>, data: unknown, event: EventEnvelope) => Promise<void>,
    });
  }
  if (!bySubject.size) throw new Error(`consumer ${opts.durable}: no events to consume`);
  return startConsumer<DB>({
    ...rest,
    subjects: [...bySubject.keys()],
    async handle(trx, event) {
      const handler = bySubject.get(event.type);
      // Another subject on the stream (the envelope's type is the unprefixed subject): not ours.
      if (!handler) return;
      const parsed = events[handler.key].payload.safeParse(event.data);
      if (!parsed.success) {
        const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`);
        throw new PoisonEvent(`malformed ${handler.key} payload: ${fields.join('; ')}`);
      }
      await handler.apply(trx, parsed.data, event);
    },
  });
}
