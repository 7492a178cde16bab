import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { headers, type NatsConnection } from 'nats';
import type pg from 'pg';
import { type EventEnvelope, ensureStream, streamNames } from './events.ts';
import type { Logger } from './log.ts';
import { startPump } from './pump.ts';

const NOTIFY_CHANNEL = 'studium_outbox';
const enc = new TextEncoder();

/**
 * Records a domain event in the caller's transaction; the relay publishes it after commit.
 * The subject is the contract's event subject (`evt.<service>.<event>`), without the prefix.
 */
export async function addEvent<DB>(trx: Transaction<DB> | Kysely<DB>, subject: string, data: unknown): Promise<string> {
  const envelope: EventEnvelope = {
    id: randomUUID(),
    type: subject,
    occurred_at: new Date().toISOString(),
    data,
  };
  await sql`insert into outbox (subject, payload) values (${subject}, ${JSON.stringify(envelope)}::jsonb)`.execute(trx);
  await sql`select pg_notify(${NOTIFY_CHANNEL}, current_schema())`.execute(trx);
  return envelope.id;
}

export interface RelayOptions {
  nc: NatsConnection;
  pool: pg.Pool;
  schema: string;
  prefix: string;
  log: Logger;
  /** Poll interval; a NOTIFY on commit wakes the relay sooner. */
  intervalMs?: number;
}

/** A running relay: publish the outbox to JetStream until stopped. */
export interface Relay {
  /** Publishes whatever is pending now (tests call it to avoid waiting). */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the relay of one schema's outbox. Rows are taken with SKIP LOCKED, so relays of several
 * replicas share the work; each event carries its id as Nats-Msg-Id, so a row published twice
 * (a crash between publish and mark) is dropped by the stream's de-duplication.
 */
export async function startRelay(opts: RelayOptions): Promise<Relay> {
  const js = opts.nc.jetstream();
  await ensureStream(opts.nc, opts.prefix);
  const names = streamNames(opts.prefix);
  let stopped = false;

  async function publishBatch(): Promise<number> {
    const client = await opts.pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ id: number; subject: string; payload: EventEnvelope }>(
        'select id, subject, payload from outbox where published_at is null order by id limit 100 for update skip locked',
      );
      for (const row of rows) {
        const h = headers();
        h.set('Nats-Msg-Id', row.payload.id);
        await js.publish(names.subject(row.subject), enc.encode(JSON.stringify(row.payload)), { headers: h });
      }
      if (rows.length) {
        await client.query('update outbox set published_at = now() where id = any($1)', [rows.map((r) => r.id)]);
      }
      await client.query('commit');
      return rows.length;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await publishBatch();
      total += n;
      if (n < 100) return total;
    }
  }

  // A checked-out client has no pool error handler: a lost connection must be caught here, or it
  // crashes the process. Polling covers the gap until LISTEN is back.
  type Listener = {
    client: pg.PoolClient;
    held: boolean;
    onError: (err: Error) => void;
    onNotify: (n: pg.Notification) => void;
  };
  let listener: Listener | null = null;
  const release = (l: Listener, err?: Error) => {
    // A client goes back to the pool once, without our handlers (the pool has its own when idle).
    if (!l.held) return;
    l.held = false;
    l.client.removeListener('error', l.onError);
    l.client.removeListener('notification', l.onNotify);
    l.client.release(err);
  };
  const listen = async (): Promise<void> => {
    const client = await opts.pool.connect();
    const l: Listener = {
      client,
      held: true,
      onError: (err) => {
        opts.log.warn({ err }, 'outbox relay: LISTEN connection lost, reconnecting');
        release(l, err);
        if (listener === l) listener = null;
        if (!stopped) setTimeout(() => void listen().catch(() => {}), 1000).unref();
      },
      onNotify: (n) => {
        if (n.payload === opts.schema && !stopped) void pump.kick();
      },
    };
    client.on('error', l.onError);
    client.on('notification', l.onNotify);
    await client.query(`listen ${NOTIFY_CHANNEL}`);
    listener = l;
  };
  const pump = startPump(drain, { intervalMs: opts.intervalMs ?? 1000, log: opts.log, name: 'outbox relay' });
  await listen();

  return {
    flush: () => pump.flush(),
    async stop() {
      stopped = true;
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
