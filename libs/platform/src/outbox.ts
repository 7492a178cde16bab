import { randomUUID } from 'node:crypto';
import { type EventKey, type EventPayload, events } from '@studium/contracts';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { headers, type MsgHdrs, type NatsConnection } from 'nats';
import type pg from 'pg';
import { listenPoolOf, OUTBOX_NOTIFY_CHANNEL, onOutboxCommit } from './db.ts';
import { type EventEnvelope, ensureStream, streamNames } from './events.ts';
import type { Logger } from './log.ts';
import { startPump } from './pump.ts';
import { contextOf, failSpan, injectTrace, SpanKind, traceparent, tracer, tracingExported } from './tracing.ts';

const NOTIFY_CHANNEL = OUTBOX_NOTIFY_CHANNEL;
const enc = new TextEncoder();

/** A new event's envelope, as {@link addEvent} stores it in the outbox's payload. */
export function eventEnvelope<T>(subject: string, data: T): EventEnvelope<T> {
  const trace = traceparent();
  return { id: randomUUID(), type: subject, occurred_at: new Date().toISOString(), data, ...(trace ? { trace } : {}) };
}

/**
 * Records a domain event in the caller's transaction; the relay publishes it after commit (the
 * pool's client sees the insert and wakes this process's relay once the transaction commits: see
 * `watchOutbox` in db.ts). The subject is the contract's event subject (`evt.<service>.<event>`),
 * without the prefix.
 */
export async function addEvent<DB>(trx: Transaction<DB> | Kysely<DB>, subject: string, data: unknown): Promise<string> {
  const envelope = eventEnvelope(subject, data);
  await sql`insert into outbox (subject, payload) values (${subject}, ${JSON.stringify(envelope)}::jsonb)`.execute(trx);
  return envelope.id;
}

/**
 * Records a catalog event in the caller's transaction, by its key in the contracts' `events`:
 * the subject comes from the catalog and the payload is type-checked against its schema.
 * Services emit their events through this, not through {@link addEvent} with a bare subject.
 */
export function emitEvent<DB, K extends EventKey>(
  trx: Transaction<DB> | Kysely<DB>,
  key: K,
  data: EventPayload<K>,
): Promise<string> {
  return addEvent(trx, events[key].subject, data);
}

/**
 * Records one event per row of `rows` in the caller's transaction with ONE `INSERT … SELECT`: the
 * set-based form of {@link addEvent} for a change of many rows at once. `rows` is a query selecting
 * `data` (jsonb: the event's data) and `ord` (the order the events are written and so published in).
 * Each event gets its own id (the Nats-Msg-Id); all share `occurred_at`. The envelope and the
 * wake-up are those of {@link addEvent}. Returns how many events were recorded.
 */
export async function addEventsFrom<DB>(
  trx: Transaction<DB> | Kysely<DB>,
  subject: string,
  rows: RawBuilder<unknown>,
): Promise<number> {
  const occurredAt = new Date().toISOString();
  // One round trip: the insert and its count.
  const r = await sql<{ n: string }>`with ins as (insert into outbox (subject, payload)
      select ${subject}, jsonb_build_object('id', gen_random_uuid()::text, 'type', ${subject}::text,
        'occurred_at', ${occurredAt}::text, 'data', e.data)
      from (${rows}) as e
      order by e.ord
      returning 1)
    select count(*) as n from ins`.execute(trx);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * {@link addEventsFrom} for a catalog event, by its key in the contracts' `events` (the subject
 * comes from the catalog), as {@link emitEvent} is for one. The rows' `data` is built in SQL, so
 * the compiler cannot check it against the schema: the caller's tests must.
 */
export function emitEventsFrom<DB>(
  trx: Transaction<DB> | Kysely<DB>,
  key: EventKey,
  rows: RawBuilder<unknown>,
): Promise<number> {
  return addEventsFrom(trx, events[key].subject, rows);
}

export interface RelayOptions {
  nc: NatsConnection;
  pool: pg.Pool;
  schema: string;
  prefix: string;
  log: Logger;
  /**
   * Poll interval; the process's own commits with events wake the relay sooner (see `watchOutbox` in
   * db.ts), and so does the NOTIFY of a process without a relay on the database.
   */
  intervalMs?: number;
  /** First delay before listening again after the LISTEN connection is lost; doubles up to 30 s (default 500). */
  listenRetryMs?: number;
  /**
   * After a commit of this process that added events, the relay runs this much later, so that the
   * events of every commit meanwhile go out in one pass (one claim, one socket write, one mark) instead
   * of one pass each (default 5; 0: at once).
   */
  wakeWindowMs?: number;
  /** How long a pass waits for the acks of its batch before it gives the rows back (default {@link RELAY_PUBLISH_TIMEOUT_MS}). */
  publishTimeoutMs?: number;
  /** How long a claim leases its rows (default {@link RELAY_LEASE_MS}; at least twice `publishTimeoutMs`). */
  leaseMs?: number;
}

/** A running relay: publish the outbox to JetStream until stopped. */
export interface Relay {
  /** Publishes whatever is pending now (tests call it to avoid waiting). */
  flush(): Promise<number>;
  /**
   * Starts a pass now without waiting for it (a pass running asks for one more): for a writer that
   * committed events without NOTIFY, which wakes this process's relay only.
   */
  kick(): void;
  /**
   * A pass within `wakeWindowMs`, shared by every wake-up meanwhile: for a write that added events
   * where the pool's watcher does not see them (an insert inside an SQL function).
   */
  wake(): void;
  /** True while the relay holds a LISTEN connection (other processes' commits wake it); polling covers the gaps. */
  readonly listening: boolean;
  stop(): Promise<void>;
}

/**
 * Gives a checked-out client back to the pool without our error handler. A client with a lost
 * connection is destroyed instead and keeps a silent handler: pg may still emit a late error on
 * it, and an error event without a listener crashes the process.
 */
function discard(client: pg.PoolClient, onError: (err: Error) => void, err?: Error): void {
  client.removeListener('error', onError);
  if (err) client.on('error', () => {});
  client.release(err);
}

/**
 * The publish of an event written by a traced call, as a span of that call's trace (carried on to
 * consumers). A relay that does not export (a process restarted without the endpoint) makes no
 * span and passes the stored context on as it is.
 */
function tracedPublish<T>(subject: string, parent: string, h: MsgHdrs, send: () => Promise<T>): Promise<T> {
  if (!tracingExported()) {
    h.set('traceparent', parent);
    return send();
  }
  return tracer.startActiveSpan(`${subject} publish`, { kind: SpanKind.PRODUCER }, contextOf(parent), async (span) => {
    injectTrace(h);
    try {
      return await send();
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Rows a relay claims per statement (and publishes as one batch). */
const BATCH = 100;

/** How long a relay waits for the stream's acks of a batch before it gives the rows back (default). */
export const RELAY_PUBLISH_TIMEOUT_MS = 5_000;

/**
 * How long a claim keeps the other relays off its rows (default). The lease rule: longer than a
 * pass can take, the publish timeout (5 s) plus the mark's wait for a connection (behind the
 * pooler at most its query_wait_timeout, 10 s, after which the mark fails and the lease lapses
 * anyway); and far shorter than the stream's duplicate_window (10 min, see ensureStream), so a row
 * published again after a lapse still falls inside it and is stored once. A lease that lapses
 * under a relay still at work costs only that second copy. It is also how long the rows of a
 * relay killed mid-pass wait for another relay (a pass lasts milliseconds, so that is rare).
 */
export const RELAY_LEASE_MS = 30_000;

/** `ids` as an SQL array literal (the ids are bigints read from the outbox: digits only). */
function idList(ids: number[]): string {
  for (const id of ids) if (!Number.isSafeInteger(id)) throw new Error(`outbox relay: unexpected id ${id}`);
  return `'{${ids.join(',')}}'::bigint[]`;
}

/**
 * Starts the relay of one schema's outbox. A pass holds no connection and no transaction while it
 * publishes (a stalled NATS used to keep every relay's transaction open, and behind PgBouncer
 * took the server connections of the whole service):
 *
 * 1. claim: one statement (its own short transaction) leases up to 100 unpublished, unleased rows
 *    (`for update skip locked`, so concurrent claims of several replicas never take a row twice);
 * 2. publish them outside any transaction, all at once, and await the acks;
 * 3. settle: one statement marks the acknowledged rows published and gives the others back.
 *
 * An empty poll is the claim alone: one statement that writes nothing (no BEGIN, no COMMIT, no
 * transaction id, no WAL). Each event carries its id as Nats-Msg-Id, so a row published twice (a
 * crash between publish and mark, a lease that lapsed while its relay still published, a replica
 * on the old relay) is stored once: see {@link RELAY_LEASE_MS} for why the window covers it.
 */
export async function startRelay(opts: RelayOptions): Promise<Relay> {
  const js = opts.nc.jetstream();
  const jsm = await ensureStream(opts.nc, opts.prefix);
  const names = streamNames(opts.prefix);
  const publishTimeoutMs = opts.publishTimeoutMs ?? RELAY_PUBLISH_TIMEOUT_MS;
  const leaseMs = opts.leaseMs ?? RELAY_LEASE_MS;
  if (!Number.isSafeInteger(leaseMs) || !Number.isSafeInteger(publishTimeoutMs) || leaseMs < 2 * publishTimeoutMs) {
    throw new Error(
      `outbox relay: a lease (${leaseMs} ms) must be at least twice the publish timeout (${publishTimeoutMs} ms)`,
    );
  }
  const dedupMs = (await jsm.streams.info(names.stream)).config.duplicate_window / 1e6;
  if (dedupMs > 0 && dedupMs < 4 * leaseMs) {
    // The relay still works; a row published again after a lapsed lease may then be stored twice
    // (the consumers' processed_events still apply it once).
    opts.log.error(
      { stream: names.stream, duplicateWindowMs: dedupMs, leaseMs },
      'outbox relay: the stream de-duplicates over less than four leases',
    );
  }
  // The relay's name on the rows it leases: its settle gives back only rows still leased by it
  // (passes of one relay never overlap: the pump runs one at a time).
  const owner = randomUUID();
  let stopped = false;

  // Both statements commit without waiting for their WAL flush (about 0.8 ms here): a claim lost
  // in a database crash only frees its rows early, a lost mark only makes a later pass publish the
  // row again, which the stream drops as a duplicate (and the consumers' processed_events would
  // ignore anyway). A simple query of several statements runs as one implicit transaction, which
  // is what SET LOCAL needs, and is over when its answer comes; it takes no parameters, so the
  // lease and the ids are written in (numbers and a UUID of our own).
  const claimText = `set local synchronous_commit = off;
    update outbox set leased_until = now() + interval '${leaseMs} milliseconds', leased_by = '${owner}'
      where id in (select id from outbox
        where published_at is null and (leased_until is null or leased_until < now())
        order by id limit ${BATCH} for update skip locked)
      returning id, subject, payload`;

  /** Marks `acked` published (a first mark stays) and gives back the rows of `failed` this relay still leases. */
  async function settle(acked: number[], failed: number[]): Promise<void> {
    const statements = ['set local synchronous_commit = off'];
    if (acked.length) {
      statements.push(
        `update outbox set published_at = now() where id = any(${idList(acked)}) and published_at is null`,
      );
    }
    if (failed.length) {
      statements.push(
        `update outbox set leased_until = null
          where id = any(${idList(failed)}) and leased_by = '${owner}' and published_at is null`,
      );
    }
    await opts.pool.query(statements.join('; '));
  }

  async function publishBatch(): Promise<number> {
    const claimed = (await opts.pool.query(claimText)) as unknown as Array<
      pg.QueryResult<{ id: number; subject: string; payload: EventEnvelope }>
    >;
    const rows = claimed[1]?.rows ?? [];
    if (rows.length === 0) return 0;
    rows.sort((a, b) => a.id - b.id);
    // Sent together (one socket write for the batch) and acknowledged together, in id order on
    // one connection, so the stream keeps that order; no connection is held meanwhile. A row whose
    // publish failed goes back to the outbox and out in a later pass, so a retried event may come
    // after later ones: consumers do not rely on order (a redelivered event comes late anyway).
    const published = await Promise.allSettled(
      rows.map((row) => {
        const h = headers();
        h.set('Nats-Msg-Id', row.payload.id);
        const send = () =>
          js.publish(names.subject(row.subject), enc.encode(JSON.stringify(row.payload)), {
            headers: h,
            timeout: publishTimeoutMs,
          });
        return row.payload.trace ? tracedPublish(row.subject, row.payload.trace, h, send) : send();
      }),
    );
    const acked = rows.filter((_, i) => published[i]?.status === 'fulfilled').map((r) => r.id);
    const failed = rows.filter((_, i) => published[i]?.status === 'rejected').map((r) => r.id);
    const failure = published.find((r) => r.status === 'rejected');
    if (!failure) {
      // A mark that fails leaves the rows leased: they go out again once the lease lapses.
      await settle(acked, failed);
      return rows.length;
    }
    // The publish's error is the one the pass reports; a settle that fails too (the database away
    // as well) leaves the rows to their lease.
    await settle(acked, failed).catch((err) =>
      opts.log.warn({ err }, 'outbox relay: could not settle a batch whose publish failed'),
    );
    throw failure.reason;
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await publishBatch();
      total += n;
      if (n < BATCH) return total;
    }
  }

  // A checked-out client has no pool error handler: a lost connection must be caught here, or it
  // crashes the process. The relay listens again with backoff for as long as it takes (polling
  // covers the gap), and every client it checks out goes back to the pool exactly once.
  type Listener = {
    client: pg.PoolClient;
    held: boolean;
    onError: (err: Error) => void;
    onNotify: (n: pg.Notification) => void;
  };
  let listener: Listener | null = null;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  const retryMs = opts.listenRetryMs ?? 500;
  const release = (l: Listener, err?: Error) => {
    // A client goes back to the pool once, without our handlers (the pool has its own when idle).
    if (!l.held) return false;
    l.held = false;
    l.client.removeListener('notification', l.onNotify);
    discard(l.client, l.onError, err);
    if (listener === l) listener = null;
    return true;
  };
  const listenLater = (err: unknown) => {
    if (stopped || retry) return;
    failures++;
    // Full jitter keeps replicas that lost the database together from reconnecting in step.
    const delay = Math.round(Math.min(retryMs * 2 ** (failures - 1), 30_000) * (0.5 + Math.random() / 2));
    opts.log.warn({ err, attempt: failures, delayMs: delay }, 'outbox relay: not listening, will try again');
    retry = setTimeout(() => {
      retry = null;
      void listen();
    }, delay);
    retry.unref();
  };
  const listen = async (): Promise<void> => {
    let client: pg.PoolClient;
    try {
      // Straight to PostgreSQL when the service has a direct URL: behind a transaction pooler a
      // LISTEN would sit on a server connection that other clients use (polling still covers).
      client = await listenPoolOf(opts.pool).connect();
    } catch (err) {
      listenLater(err);
      return;
    }
    const l: Listener = {
      client,
      held: true,
      onError: (err) => {
        if (release(l, err)) listenLater(err);
      },
      onNotify: (n) => {
        if (n.payload === opts.schema && !stopped) void pump.kick();
      },
    };
    client.on('error', l.onError);
    client.on('notification', l.onNotify);
    try {
      await client.query(`listen ${NOTIFY_CHANNEL}`);
    } catch (err) {
      if (release(l, err as Error)) listenLater(err);
      return;
    }
    if (stopped || !l.held) {
      release(l);
      return;
    }
    listener = l;
    if (failures > 0) {
      opts.log.info({ attempts: failures }, 'outbox relay: listening again');
      failures = 0;
      // Commits made while nobody listened notified no one.
      void pump.kick();
    }
  };
  const pump = startPump(drain, { intervalMs: opts.intervalMs ?? 1000, log: opts.log, name: 'outbox relay' });
  const windowMs = opts.wakeWindowMs ?? 5;
  let wakeTimer: NodeJS.Timeout | null = null;
  const wake = () => {
    if (stopped) return;
    if (windowMs === 0) {
      void pump.kick();
      return;
    }
    if (wakeTimer) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = null;
      void pump.kick();
    }, windowMs);
  };
  // This process's commits wake this relay directly (no NOTIFY: see db.ts's outboxCommitted).
  const unwatch = onOutboxCommit(opts.pool, wake);
  await listen();

  return {
    flush: () => {
      // The pass run now covers every commit that asked for a wake-up so far.
      if (wakeTimer) clearTimeout(wakeTimer);
      wakeTimer = null;
      return pump.flush();
    },
    kick: () => void pump.kick(),
    wake,
    get listening() {
      return listener !== null;
    },
    async stop() {
      stopped = true;
      unwatch();
      if (retry) clearTimeout(retry);
      retry = null;
      if (wakeTimer) clearTimeout(wakeTimer);
      wakeTimer = null;
      await pump.stop();
      const l = listener;
      listener = null;
      if (l?.held) {
        await l.client.query(`unlisten ${NOTIFY_CHANNEL}`).catch(() => {});
        release(l);
      }
    },
  };
}
