import {
  type Database,
  type EventEnvelope,
  ensureStream,
  type Logger,
  streamNames,
  subjectMatches,
} from '@studium/platform';
import { sql } from 'kysely';
import type { JsMsg, NatsConnection } from 'nats';
import type { ReportingDb } from './db.ts';
import { createGenerationSchema, currentGeneration, generationNumber, generationSchema } from './generation.ts';
import { applyEvents, PROJECTED_SUBJECTS } from './projector.ts';
import { ProjectionRepository } from './repositories/projection.repository.ts';

export interface RebuildOptions {
  nc: NatsConnection;
  prefix: string;
  database: Database<ReportingDb>;
  log: Logger;
  /** Events applied per transaction. */
  batch?: number;
  /** Keep the replaced generation's schema instead of dropping it (for comparing). */
  keepPrevious?: boolean;
}

export interface RebuildResult {
  previous: string;
  generation: string;
  /** Stream messages read, and the events among them that changed the read models. */
  read: number;
  applied: number;
  ms: number;
}

/**
 * Rebuilds the read models from the start of the stream into a fresh generation schema and swaps
 * it in, while the live consumer keeps running. The swap takes the generation row for update (the
 * live consumer holds it for share while it writes), and happens only when the rebuild has read
 * up to the stream's last sequence seen under that lock: every event the live consumer committed
 * is then in the new generation, and every later one goes there (a redelivered one is a no-op).
 */
export async function rebuild(opts: RebuildOptions): Promise<RebuildResult> {
  const started = performance.now();
  const { db, pool } = opts.database;
  const previous = await currentGeneration(db);
  const next = generationSchema((await highestGeneration(opts.database)) + 1);
  await createGenerationSchema(pool, next);
  const jsm = await ensureStream(opts.nc, opts.prefix);
  const names = streamNames(opts.prefix);
  const wanted = PROJECTED_SUBJECTS.map(names.subject);
  const consumer = await opts.nc.jetstream().consumers.get(names.stream);
  let lastSeq = 0;
  let read = 0;
  let applied = 0;
  for (;;) {
    const batch: JsMsg[] = [];
    const messages = await consumer.fetch({ max_messages: opts.batch ?? 500, expires: 1000 });
    for await (const m of messages) batch.push(m);
    if (batch.length) {
      await db.transaction().execute(async (trx) => {
        const repo = new ProjectionRepository(trx, next);
        const envelopes: EventEnvelope[] = [];
        for (const m of batch) {
          if (!wanted.some((s) => subjectMatches(s, m.subject))) continue;
          try {
            const event = m.json<EventEnvelope>();
            if (typeof event?.id === 'string' && event.id) envelopes.push(event);
          } catch {
            // A malformed message never applied live either.
          }
        }
        applied += (await applyEvents(repo, envelopes, opts.log)).length;
      });
      read += batch.length;
      lastSeq = batch[batch.length - 1]?.seq ?? lastSeq;
    }
    const caughtUp = batch.length === 0 || (batch[batch.length - 1]?.info.pending ?? 0) === 0;
    if (caughtUp && (await swap(opts, names.stream, jsm, next, lastSeq))) break;
  }
  opts.log.info({ previous, generation: next, read, applied }, 'reporting: read models rebuilt and swapped in');
  if (!opts.keepPrevious && previous !== next) {
    // Let reads that resolved the old generation just before the swap finish first.
    await new Promise((r) => setTimeout(r, 1000));
    await sql`drop schema if exists ${sql.id(previous)} cascade`.execute(db);
  }
  return { previous, generation: next, read, applied, ms: Math.round(performance.now() - started) };
}

async function swap(
  opts: RebuildOptions,
  stream: string,
  jsm: Awaited<ReturnType<typeof ensureStream>>,
  next: string,
  lastSeq: number,
): Promise<boolean> {
  return opts.database.db.transaction().execute(async (trx) => {
    await sql`select current from generation where id = 1 for update`.execute(trx);
    const info = await jsm.streams.info(stream);
    if (lastSeq < info.state.last_seq) return false;
    await trx.updateTable('generation').set({ current: next, built_at: new Date().toISOString() }).execute();
    return true;
  });
}

/** The highest generation number that exists (schemas left by a failed rebuild count too). */
async function highestGeneration(database: Database<ReportingDb>): Promise<number> {
  const rows = await sql<{ name: string }>`select schema_name as name from information_schema.schemata
    where schema_name ~ '^reporting_g[0-9]+$'`.execute(database.db);
  return Math.max(0, ...rows.rows.map((r) => generationNumber(r.name)));
}
