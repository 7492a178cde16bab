import { type Kysely, sql } from 'kysely';
import { headers, type NatsConnection } from 'nats';
import type pg from 'pg';

/** A parked event as the admin CLI lists it. */
export interface DeadLetter {
  id: number;
  consumer: string;
  msg_id: string | null;
  subject: string;
  error: string;
  attempts: number;
  parked_at: string;
  replayed_at: string | null;
}

/** What the consumer parks: the message as it came and why it failed. */
export interface Parked {
  consumer: string;
  msgId: string | null;
  subject: string;
  payload: string;
  error: string;
  attempts: number;
}

/** Anything that runs a query on the service's schema (a pool or a client). */
type Queryable = Pick<pg.Pool, 'query'>;

/** Parks one event in the schema's dead-letter table. */
export async function parkDeadLetter<DB>(db: Kysely<DB>, p: Parked): Promise<number> {
  const { rows } = await sql<{
    id: number;
  }>`insert into dead_letters (consumer, msg_id, subject, payload, error, attempts)
    values (${p.consumer}, ${p.msgId}, ${p.subject}, ${p.payload}, ${p.error.slice(0, 2000)}, ${p.attempts})
    returning id`.execute(db);
  return rows[0].id;
}

/** Parked events, oldest first; replayed ones too with `all`. */
export async function listDeadLetters(
  db: Queryable,
  opts: { all?: boolean; limit?: number } = {},
): Promise<DeadLetter[]> {
  const { rows } = await db.query<DeadLetter>(
    `select id, consumer, msg_id, subject, error, attempts, parked_at, replayed_at from dead_letters
     ${opts.all ? '' : 'where replayed_at is null'} order by id limit $1`,
    [opts.limit ?? 100],
  );
  return rows;
}

/**
 * Publishes a parked event again on its subject and marks it replayed, in one transaction (a
 * failed publish leaves it parked). Its Nats-Msg-Id names the dead letter, so the stream's
 * de-duplication does not drop it as a copy of the original; consumers that applied the event
 * already skip it by its envelope id. Returns false when no such parked event exists.
 */
export async function replayDeadLetter(
  pool: pg.Pool,
  nc: NatsConnection,
  schema: string,
  id: number,
): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ subject: string; payload: string }>(
      'select subject, payload from dead_letters where id = $1 and replayed_at is null for update',
      [id],
    );
    if (!rows.length) {
      await client.query('rollback');
      return false;
    }
    const h = headers();
    h.set('Nats-Msg-Id', `dead-letter.${schema}.${id}`);
    await nc.jetstream().publish(rows[0].subject, rows[0].payload, { headers: h });
    await client.query('update dead_letters set replayed_at = now() where id = $1', [id]);
    await client.query('commit');
    return true;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** The schemas of a database that have a dead-letter table (every service using the platform migrations). */
export async function deadLetterSchemas(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ schema: string }>(
    `select table_schema as schema from information_schema.tables where table_name = 'dead_letters' order by 1`,
  );
  return rows.map((r) => r.schema);
}
