import { type EventKey, type EventPayload, events } from '@studium/contracts';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { parkDeadLetter } from './dead-letters.ts';
import { type DurablePlan, durablePlan, ensureDurable, RETIRED_DURABLE_IDLE_MS } from './durables.ts';
import { type EventEnvelope, ensureStream, keepWorking, streamNames } from './events.ts';
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
  /** The consumer's own database: the processed-message marks are written with the handlers' effects. */
  db: Kysely<DB>;
  log: Logger;
  /**
   * Applies one event inside the transaction of its batch, which also marks it processed. It may
   * run more than once for one delivery (a batch rolled back by another event's failure is applied
   * again): it writes only through `trx`, and what it reads elsewhere it may read again.
   */
  handle(trx: Transaction<DB>, event: EventEnvelope): Promise<void>;
  /** Deliveries of an event before it is parked as a dead letter (default 5). */
  maxAttempts?: number;
  /** Delay before the second delivery of a failed event; doubles each time, up to a minute (default 1000). */
  retryDelayMs?: number;
  /** First delay before restarting a loop that ended; doubles while restarts fail, up to 30 s (default 1000). */
  restartDelayMs?: number;
  /** Registry for the dead-letter and restart counters. */
  metrics?: Registry;
  /** For tests: called at the two points of a batch where a crash must lose and double nothing. */
  hooks?: BatchHooks;
}

/** What a batch held: the ids of its events, and of those it applied (not marked before, not failed). */
export interface BatchReport {
  events: string[];
  applied: string[];
}

/** Test hooks of a consumer's batches (a crash test stops the process in one and kills it there). */
export interface BatchHooks {
  /** In the batch's transaction, after its handlers ran and before COMMIT. */
  applied?(batch: BatchReport): Promise<void> | void;
  /** After COMMIT, before the batch's messages are acknowledged. */
  committed?(batch: BatchReport): Promise<void> | void;
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
 * Events applied in one transaction at most. Bounded so that a transaction holds its row locks
 * briefly, and so that a batch applied under savepoints (after one of its events failed) stays
 * within the 64 subtransactions PostgreSQL keeps per backend: past them every snapshot on the
 * server reads pg_subtrans (subxid overflow). Thirty-two already make the per-batch BEGIN, marks
 * and COMMIT a tenth of a round trip per event.
 */
export const CONSUMER_BATCH = 32;

/** A delivered message with its decoded envelope. */
type Item = { m: JsMsg; event: EventEnvelope };

/** A handler's error with the event it belongs to; its transaction was rolled back. */
class EventFailed extends Error {
  constructor(
    readonly item: Item,
    readonly error: unknown,
  ) {
    super(`event ${item.event.id} failed`);
  }
}

/**
 * Consumes events at least once and applies each exactly once, several in one transaction: the
 * messages delivered while a batch ran (up to {@link CONSUMER_BATCH}; one that arrives alone is
 * applied at once, a turn of the event loop later) are taken together, their ids inserted into
 * `processed_events` in ONE statement that returns the ids not yet there, each new one applied by
 * its handler in stream order, and the whole committed once; the messages are acknowledged after
 * the commit. That costs BEGIN, the marks and COMMIT per batch, where one event per transaction
 * paid them per event. What keeps it exactly once:
 * - marks and effects commit together, so a crash before COMMIT leaves neither (the redelivery
 *   applies the event) and a crash after it leaves both (the redelivery finds the mark, skips the
 *   handler and is acknowledged);
 * - acknowledgements only after COMMIT, so an event acknowledged is an event applied;
 * - the marks are inserted first: a replica that got the same event redelivered waits on that
 *   insert until this transaction ends, then finds the mark (committed) or takes the event itself
 *   (rolled back). The ids are sorted, so two such inserts lock them in the same order.
 * A handler error rolls the batch back; that event takes the retry path (redelivered after a
 * growing delay; after `maxAttempts` deliveries, or at once for a `PoisonEvent` or a message that
 * cannot be decoded, parked in `dead_letters` with the error, counted, and acknowledged, so one
 * poison event never blocks or spins the consumer), and the rest are applied again in a new
 * transaction, each under a savepoint now, so a second failing event is rolled back alone (its
 * mark removed) and the others commit. An error that belongs to no handler (the marks, the
 * commit) applies the batch's events one per transaction, so only one that fails by itself is
 * retried. The held messages (the batch and those waiting for the next) are beaten while they wait
 * (`keepWorking`), so the short ack wait redelivers only a dead replica's events.
 * A loop that ends without `stop()` (durable deleted, stream gone) is restarted with backoff by
 * `superviseConsumer`, re-creating the durable; `consumersReady` fails meanwhile. The server
 * delivers only the consumer's subjects: one durable per subject, each its own supervised loop and
 * batches, with the same handler and marks (see `durablePlan`); the consumer is `running` while
 * all of them are. One per subject also on NATS 2.10+, which could filter one durable on several:
 * a single filter travels in the create request's subject, where the NATS permissions pin it, so
 * a service may create its own durables only with the events it consumes
 * (scripts/nats-auth.ts, `CONSUMERS`); several filters would travel in the body, unchecked.
 */
export async function startConsumer<DB>(opts: ConsumerOptions<DB>): Promise<RunningConsumer> {
  const names = streamNames(opts.prefix);
  const maxAttempts = opts.maxAttempts ?? 5;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const metrics = opts.metrics ? platformMetrics(opts.metrics) : null;
  const plans = durablePlan(opts.durable, opts.subjects, false);

  async function open(plan: DurablePlan): Promise<ConsumerMessages> {
    const jsm = await ensureStream(opts.nc, opts.prefix);
    const ensured = await ensureDurable(jsm, opts.prefix, plan);
    if (ensured.created && plan.replaces.length)
      opts.log.info({ durable: plan.name, startedAfter: ensured.startedAfter }, 'consumer: durable created');
    if (ensured.kept.length)
      opts.log.warn(
        { durable: plan.name, kept: ensured.kept },
        'consumer: durables of an older release are left unread; remove them (nats consumer rm) once no old replica runs',
      );
    if (ensured.retired.length)
      opts.log.info(
        { durable: plan.name, retired: ensured.retired, idleMs: RETIRED_DURABLE_IDLE_MS },
        'consumer: durables of the other mode retired, the server deletes them once idle',
      );
    const consumer = await opts.nc.jetstream().consumers.get(names.stream, plan.name);
    // Without abort_on_missing_resource a deleted durable leaves the loop waiting forever, silently.
    // The client asks for more only once the loop has read past what it has (the next pull waits
    // in the iterator behind them), and the loop stops reading while a full batch waits (see
    // `run`): at most a batch in hand, one waiting and one pull's worth in the client are held.
    // The first two are beaten (keepWorking); the client's wait unbeaten for at most the batch in
    // hand, so a batch should take less than ACK_WAIT_MS (3 s: 90 ms per event of 32). A slower
    // one has those redelivered to another replica meanwhile, wasted work but never applied
    // twice (the marks).
    return consumer.consume({ max_messages: CONSUMER_BATCH, abort_on_missing_resource: true });
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

  /** The envelope of a message, or null when it cannot be decoded (then it is parked). */
  async function decode(m: JsMsg): Promise<Item | null> {
    try {
      const event = m.json<EventEnvelope>();
      // Without an id the event can never be marked processed: it would be redelivered forever.
      if (typeof event?.id !== 'string' || !event.id) throw new Error('event without id');
      return { m, event };
    } catch (err) {
      await park(m, null, new Error(`malformed event: ${(err as Error).message}`));
      return null;
    }
  }

  /** The retry path of an event whose effects were not committed: redelivered later, or parked. */
  async function fail(item: Item, err: unknown): Promise<void> {
    const attempt = item.m.info.redeliveryCount;
    if (attempt >= maxAttempts || err instanceof PoisonEvent) {
      await park(item.m, item.event.id, err);
      return;
    }
    opts.log.warn({ err, event: item.event.type, attempt }, 'consumer: handler failed, redelivering');
    item.m.nak(Math.min(retryDelayMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS));
  }

  /**
   * A batch in one transaction: the marks in one statement, then each new event's handler in
   * order. Without savepoints a handler error rolls it all back (EventFailed names the event);
   * with them the failing event alone is rolled back and its mark removed, and it is returned.
   */
  function transact(batch: Item[], savepoints: boolean) {
    return opts.db.transaction().execute(async (trx) => {
      const ids = [...new Set(batch.map((i) => i.event.id))].sort();
      const marked = await sql<{ msg_id: string }>`insert into processed_events (consumer, msg_id)
        select ${opts.durable}, unnest(${ids}::text[]) on conflict do nothing returning msg_id`.execute(trx);
      const fresh = new Set(marked.rows.map((r) => r.msg_id));
      const applied: string[] = [];
      const failed: { item: Item; err: unknown }[] = [];
      for (const item of batch) {
        // Marked before (applied, then a crash before the ack) or twice in this batch: nothing to do.
        if (!fresh.delete(item.event.id)) continue;
        const apply = () => consumeTraced(item.m, () => opts.handle(trx, item.event));
        if (!savepoints) {
          try {
            await apply();
          } catch (err) {
            throw new EventFailed(item, err);
          }
        } else {
          // Not released: a savepoint of the same name shadows the last, and RELEASE would be one
          // more round trip per event. The subtransactions end with the transaction.
          await sql`savepoint consumer_event`.execute(trx);
          try {
            await apply();
          } catch (err) {
            await sql`rollback to savepoint consumer_event`.execute(trx);
            failed.push({ item, err });
            continue;
          }
        }
        applied.push(item.event.id);
      }
      // A failed event's mark goes with its effects, so that its redelivery applies it.
      if (failed.length)
        await sql`delete from processed_events where consumer = ${opts.durable}
          and msg_id = any(${failed.map((f) => f.item.event.id)}::text[])`.execute(trx);
      const report = { events: batch.map((i) => i.event.id), applied };
      await opts.hooks?.applied?.(report);
      return { report, failed };
    });
  }

  /** Applies a batch and settles each of its messages: acknowledged after the commit, or retried. */
  async function apply(batch: Item[], savepoints = false): Promise<void> {
    let outcome: Awaited<ReturnType<typeof transact>>;
    try {
      outcome = await transact(batch, savepoints);
    } catch (err) {
      if (err instanceof EventFailed) {
        // Nothing was committed. The failing event takes the retry path; the rest go again, under
        // savepoints, so that another failure does not cost them a third transaction.
        await fail(err.item, err.error);
        const rest = batch.filter((i) => i !== err.item);
        if (rest.length) await apply(rest, true);
        return;
      }
      // Nothing was committed (or, when the connection died in COMMIT, perhaps all of it: then the
      // marks are there and the events are skipped below), and no handler to blame.
      if (batch.length === 1) {
        await fail(batch[0] as Item, err);
        return;
      }
      opts.log.warn({ err, durable: opts.durable, size: batch.length }, 'consumer: batch failed, applying one by one');
      for (const item of batch) await apply([item]);
      return;
    }
    await opts.hooks?.committed?.(outcome.report);
    const failed = new Set(outcome.failed.map((f) => f.item));
    for (const item of batch) if (!failed.has(item)) item.m.ack();
    for (const f of outcome.failed) await fail(f.item, f.err);
  }

  /** Takes the messages of one subscription into batches; settles once the last batch is done. */
  async function run(messages: ConsumerMessages): Promise<void> {
    // Messages wait here while a batch is applied; the next batch takes up to CONSUMER_BATCH.
    const queue: Item[] = [];
    let inHand: Item[] = [];
    let draining: Promise<void> | null = null;
    let room: (() => void) | null = null;
    const drain = async () => {
      // What arrived with the first message (one pull's worth) joins its batch; a message that
      // arrives alone waits only for this turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      while (queue.length) {
        inHand = queue.splice(0, CONSUMER_BATCH);
        room?.();
        try {
          await apply(inHand);
        } catch (err) {
          // Left unsettled (an ack on a closed connection, a failing test hook): no longer beaten
          // once the next batch is in hand, so the ack wait redelivers them.
          opts.log.error({ err, durable: opts.durable }, 'consumer: batch not settled');
        }
      }
      // In the same turn as the last look at the queue: a message pushed after it starts a new drain.
      inHand = [];
      draining = null;
    };
    // The handlers may wait on locks or the database: JetStream hears the held messages are alive.
    const stopBeat = keepWorking(function* () {
      for (const item of inHand) yield item.m;
      for (const item of queue) yield item.m;
    });
    try {
      for await (const m of messages) {
        const item = await decode(m);
        if (!item) continue;
        queue.push(item);
        draining ??= drain();
        // A full batch waits: read no further (the client pulls no more) until it is taken.
        if (queue.length >= CONSUMER_BATCH)
          await new Promise<void>((resolve) => {
            room = () => {
              room = null;
              resolve();
            };
          });
      }
    } finally {
      // The batches in hand and waiting finish before a restart or stop (an ack that no longer
      // reaches a deleted durable only means a redelivery, which the marks turn into a no-op).
      await draining;
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
          run,
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
