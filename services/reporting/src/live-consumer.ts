import {
  type BatchHooks,
  type EventEnvelope,
  ensureConsumer,
  ensureStream,
  filtersManySubjects,
  keepWorking,
  type Logger,
  parkDeadLetter,
  platformMetrics,
  type RunningConsumer,
  streamNames,
  subjectMatches,
  superviseConsumer,
} from '@studium/platform';
import type { Kysely } from 'kysely';
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import { Histogram, type Registry } from 'prom-client';
import type { ReportingDb } from './db.ts';
import { lockedGeneration } from './generation.ts';
import { applyEvent, applyEvents, malformedPayload, PROJECTED_SUBJECTS } from './projector.ts';
import { ProjectionRepository } from './repositories/projection.repository.ts';

/** Durable name of the read-model consumer (replicas share it). */
export const REPORTING_CONSUMER = 'reporting-read-models';

/** Events applied in one transaction at most (all that arrived while the previous batch ran). */
const BATCH = 500;
const MAX_RETRY_DELAY_MS = 60_000;

/** A message waiting to be applied, with its decoded envelope. */
type Item = { m: JsMsg; event: EventEnvelope };

/** A running live projection (`running` and `restarts` as the platform's consumers have them). */
export interface LiveConsumer extends RunningConsumer {
  /** Event-to-report lag: from the event's occurred_at to the commit of its effects. */
  lag: Histogram;
  /** Messages per applied batch, and the time of each batch's transaction (begin to commit). */
  batchSize: Histogram;
  batchSeconds: Histogram;
}

/**
 * Keeps the current generation of the read models up to date from the stream: durable, at least
 * once, applied exactly once (`processed` in the generation, in the transaction of the effects).
 * Events that arrive while a transaction runs are applied together in the next one, set-based (one
 * statement per kind of write for the whole batch, see `applyEvents`), so a burst costs a fixed
 * number of statements and one commit per batch instead of several statements per event. A batch
 * that fails is applied again one event at a time, each with its own statements and transaction:
 * the others go through, and the failing one is redelivered with a growing delay and parked in
 * `dead_letters` after `maxAttempts` deliveries, as the platform's consumers do.
 * Each transaction reads the generation pointer with a share lock, so a rebuild's swap never
 * lands between reading the pointer and writing into the generation it names.
 * The loop runs under the platform's `superviseConsumer`: when it ends without `stop()` (durable
 * deleted, stream gone) it is restarted with backoff, re-creating the durable, counted in
 * `studium_consumer_restarts_total`, and `/readyz` fails (`consumers`) meanwhile.
 */
export async function startLiveConsumer(deps: {
  nc: NatsConnection;
  prefix: string;
  db: Kysely<ReportingDb>;
  log: Logger;
  metrics?: Registry;
  /** Deliveries of an event that fails on its own before it is parked as a dead letter (default 5). */
  maxAttempts?: number;
  /** Delay before the second delivery of such an event; doubles each time, up to a minute (default 1000). */
  retryDelayMs?: number;
  /** First delay before restarting a loop that ended; doubles while restarts fail, up to 30 s (default 1000). */
  restartDelayMs?: number;
  /** For tests: the two points of a batch where a crash must lose and double nothing (as the platform's consumers). */
  hooks?: BatchHooks;
}): Promise<LiveConsumer> {
  const maxAttempts = deps.maxAttempts ?? 5;
  const retryDelayMs = deps.retryDelayMs ?? 1000;
  const lag = new Histogram({
    name: 'reporting_event_lag_seconds',
    help: 'Time from an event (occurred_at) to its effect committed in the reports',
    // Fine between 0.1 and 1 s, where a loaded lesson loop's p99 lands (0.1 → 0.25 read as 245 ms).
    buckets: [
      0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
      0.75, 1, 2.5, 5, 10, 30,
    ],
    registers: deps.metrics ? [deps.metrics] : [],
  });
  const batchSize = new Histogram({
    name: 'reporting_batch_events',
    help: 'Messages applied together in one transaction by the read-model consumer',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    registers: deps.metrics ? [deps.metrics] : [],
  });
  const batchSeconds = new Histogram({
    name: 'reporting_batch_seconds',
    help: 'Time of one batch transaction of the read-model consumer, from begin to commit',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: deps.metrics ? [deps.metrics] : [],
  });
  const names = streamNames(deps.prefix);
  // NATS < 2.10 cannot filter on several subjects: the consumer then sees the whole stream and skips the rest.
  let wanted: string[] | null = null;
  /** Creates (or re-creates, after a restart) the durable and subscribes. */
  const open = async (): Promise<ConsumerMessages> => {
    const jsm = await ensureStream(deps.nc, deps.prefix);
    const filtered = await ensureConsumer(
      jsm,
      deps.prefix,
      REPORTING_CONSUMER,
      PROJECTED_SUBJECTS,
      filtersManySubjects(deps.nc),
    );
    wanted = filtered ? null : PROJECTED_SUBJECTS.map(names.subject);
    const consumer = await deps.nc.jetstream().consumers.get(names.stream, REPORTING_CONSUMER);
    return consumer.consume({ max_messages: 512, abort_on_missing_resource: true });
  };
  const deadLetters = deps.metrics ? platformMetrics(deps.metrics).deadLetters : null;
  /**
   * Parks an event no redelivery can apply (undecodable, a payload that fails its contract, or
   * one that failed on its own `maxAttempts` times) in the schema's dead_letters, as the
   * platform's consumers do, and terminates it; it is never marked processed, so
   * `dead-letters replay` applies it after the fix.
   */
  const park = async (m: JsMsg, msgId: string | null, error: string) => {
    try {
      const id = await parkDeadLetter(deps.db, {
        consumer: REPORTING_CONSUMER,
        msgId,
        subject: m.subject,
        payload: m.string(),
        error,
        attempts: m.info.redeliveryCount,
      });
      deadLetters?.labels(REPORTING_CONSUMER).inc();
      deps.log.error({ subject: m.subject, deadLetter: id, error }, 'reporting: event parked as a dead letter');
      m.term();
    } catch (err) {
      // Not parked (the database is away): keep the event and try again later.
      deps.log.error({ err }, 'reporting: could not park a dead letter, redelivering');
      m.nak(15_000);
    }
  };
  // Messages wait here while a batch is being applied; the next batch takes all that arrived.
  const queue: Item[] = [];
  let inHand: Item[] = [];
  let draining: Promise<void> | null = null;
  // Up to 512 messages wait here and in the batch in hand: JetStream hears they are being worked
  // on, so the short ack wait redelivers only a dead replica's events.
  const held = function* () {
    for (const item of inHand) yield item.m;
    for (const item of queue) yield item.m;
  };
  const observe = (event: EventEnvelope) => {
    const occurred = Date.parse(event.occurred_at);
    if (Number.isFinite(occurred)) lag.observe(Math.max(0, (Date.now() - occurred) / 1000));
  };
  /**
   * Applies a batch set-based, or one event with its own statements (`one`), in one transaction,
   * and returns the events applied; the caller acknowledges the batch only after it resolved
   * (after COMMIT), so a crash before leaves neither marks nor effects, and one after, both.
   */
  const apply = async (batch: Item[], one = false) => {
    const events = batch.map((b) => b.event.id);
    const applied = await deps.db.transaction().execute(async (trx) => {
      const generation = await lockedGeneration(trx);
      const repo = new ProjectionRepository(trx, generation);
      let done: EventEnvelope[];
      if (!one)
        done = await applyEvents(
          repo,
          batch.map((b) => b.event),
          deps.log,
        );
      else {
        const item = batch[0] as Item;
        done = (await applyEvent(repo, item.event, deps.log)) ? [item.event] : [];
      }
      await deps.hooks?.applied?.({ events, applied: done.map((e) => e.id) });
      return done;
    });
    await deps.hooks?.committed?.({ events, applied: applied.map((e) => e.id) });
    return applied;
  };
  const drain = async () => {
    // Let the messages already received join the first batch (a burst is one transaction).
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length) {
      const batch = queue.splice(0, BATCH);
      inHand = batch;
      try {
        const end = batchSeconds.startTimer();
        const applied = await apply(batch);
        end();
        batchSize.observe(batch.length);
        for (const { m } of batch) m.ack();
        for (const event of applied) observe(event);
      } catch (err) {
        // One event may be at fault: apply them one by one, so the others are not held back; the
        // one that fails is redelivered with a growing delay and parked after maxAttempts deliveries.
        deps.log.warn({ err, size: batch.length }, 'reporting: batch failed, applying its events one by one');
        for (const item of batch) {
          try {
            const applied = await apply([item], true);
            item.m.ack();
            for (const event of applied) observe(event);
          } catch (one) {
            const attempt = item.m.info.redeliveryCount;
            if (attempt >= maxAttempts) {
              await park(item.m, item.event.id, one instanceof Error ? one.message : String(one));
              continue;
            }
            deps.log.warn({ err: one, event: item.event.type, attempt }, 'reporting: event failed, redelivering');
            item.m.nak(Math.min(retryDelayMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS));
          }
        }
      }
    }
    inHand = [];
  };
  /** Takes the messages of one subscription into batches; ends when the subscription does. */
  const run = async (messages: ConsumerMessages) => {
    const stopBeat = keepWorking(held);
    try {
      for await (const m of messages) {
        if (wanted && !wanted.some((s) => subjectMatches(s, m.subject))) {
          m.ack();
          continue;
        }
        let event: EventEnvelope;
        try {
          event = m.json<EventEnvelope>();
          if (typeof event?.id !== 'string' || !event.id) throw new Error('event without id');
        } catch (err) {
          await park(m, null, `malformed event: ${(err as Error).message}`);
          continue;
        }
        const problem = malformedPayload(event);
        if (problem) {
          await park(m, event.id, problem);
          continue;
        }
        queue.push({ m, event });
        if (!draining) {
          draining = drain().finally(() => {
            draining = null;
          });
        }
      }
    } finally {
      // The batch in hand finishes before a restart or stop (an ack that no longer reaches a
      // deleted durable only means a redelivery, which `processed` turns into a no-op).
      await draining;
      stopBeat();
    }
  };
  const supervised = await superviseConsumer({
    name: REPORTING_CONSUMER,
    log: deps.log,
    open,
    run,
    restartDelayMs: deps.restartDelayMs,
    metrics: deps.metrics,
  });
  return {
    lag,
    batchSize,
    batchSeconds,
    get running() {
      return supervised.running;
    },
    get restarts() {
      return supervised.restarts;
    },
    stop: () => supervised.stop(),
  };
}
