import { type Kysely, sql, type Transaction } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** A release e-mail to hand to BullMQ: the delivery id (first job id), the payload and its re-drives. */
export interface MailRow {
  id: number;
  job_id: string;
  payload: Record<string, unknown>;
  redrives: number;
}

/** What a delivery is: open until the SMTP server accepted it (sent) or refused it for good. */
export type DeliveryState = 'pending' | 'sent' | 'rejected' | 'unknown';

/** All SQL of the release e-mail outbox, where each row is one recipient's delivery (the truth). */
export class MailOutboxRepository {
  constructor(private readonly db: Kysely<EnrollmentDb>) {}

  /** Adds e-mails in the caller's transaction; a job id already there is skipped (one e-mail ever). */
  async add(trx: Transaction<EnrollmentDb>, rows: Array<{ job_id: string; payload: object }>): Promise<void> {
    if (!rows.length) return;
    await trx
      .insertInto('mail_outbox')
      .values(rows.map((r) => ({ job_id: r.job_id, payload: JSON.stringify(r.payload) })))
      .onConflict((oc) => oc.column('job_id').doNothing())
      .execute();
  }

  /**
   * Runs `fn` (the hand-over to BullMQ) on a batch of never-enqueued rows and marks them enqueued.
   * No transaction or lock is held while `fn` waits for Redis: what keeps it correct is the
   * deterministic job id. Two replicas that read the same rows both add them, and BullMQ keeps the
   * first job under an id and ignores the second add; a crash between the add and the mark re-adds
   * the same ids on the next pass. An empty pass is one select.
   */
  async relayBatch(limit: number, fn: (rows: MailRow[]) => Promise<void>): Promise<number> {
    const rows = await this.db
      .selectFrom('mail_outbox')
      .select(['id', 'job_id', 'payload', 'redrives'])
      .where('enqueued_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
    if (!rows.length) return 0;
    await fn(rows);
    await this.db
      .updateTable('mail_outbox')
      .set({ enqueued_at: sql`now()` })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('enqueued_at', 'is', null)
      .execute();
    return rows.length;
  }

  /**
   * Runs `fn` on a batch of open deliveries enqueued more than `olderThanMs` ago; `fn` returns the
   * rows it enqueued again (each under the job id of its next re-drive), which get one more
   * re-drive and a fresh enqueued_at; the others only move to the back of the line. As in
   * {@link relayBatch} nothing is held while `fn` asks Redis: a replica that read the same rows
   * adds the same next job id (ignored by BullMQ), and the count moves only from the value read
   * (`redrives = read`), so it goes up once.
   */
  async redriveBatch(
    limit: number,
    olderThanMs: number,
    fn: (rows: MailRow[]) => Promise<MailRow[]>,
  ): Promise<{ seen: number; redriven: number }> {
    const rows = await this.db
      .selectFrom('mail_outbox')
      .select(['id', 'job_id', 'payload', 'redrives'])
      .where('outcome', 'is', null)
      .where('enqueued_at', '<', sql<string>`now() - make_interval(secs => ${olderThanMs / 1000})`)
      .orderBy('enqueued_at')
      .limit(limit)
      .execute();
    if (!rows.length) return { seen: 0, redriven: 0 };
    const again = await fn(rows);
    const redriven = new Set(again.map((r) => r.id));
    const moved = rows.filter((r) => !redriven.has(r.id));
    if (moved.length) {
      await this.db
        .updateTable('mail_outbox')
        .set({ enqueued_at: sql`now()` })
        .where(
          'id',
          'in',
          moved.map((r) => r.id),
        )
        .where('outcome', 'is', null)
        .execute();
    }
    if (again.length) {
      const read = rows.filter((r) => redriven.has(r.id));
      await sql`update mail_outbox m set redrives = m.redrives + 1, enqueued_at = now()
        from unnest(${read.map((r) => r.id)}::bigint[], ${read.map((r) => r.redrives)}::int[]) as seen(id, redrives)
        where m.id = seen.id and m.redrives = seen.redrives`.execute(this.db);
    }
    return { seen: rows.length, redriven: again.length };
  }

  /** The state of one delivery. */
  async state(jobId: string): Promise<DeliveryState> {
    const row = await this.db
      .selectFrom('mail_outbox')
      .select('outcome')
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return row ? (row.outcome ?? 'pending') : 'unknown';
  }

  /** Closes an open delivery with its outcome; false when it was closed already (or is unknown). */
  async settle(jobId: string, outcome: 'sent' | 'rejected', detail: string | null): Promise<boolean> {
    const r = await this.db
      .updateTable('mail_outbox')
      .set({ outcome, detail, settled_at: sql`now()` })
      .where('job_id', '=', jobId)
      .where('outcome', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Rows not yet handed to BullMQ (tests and health). */
  async pending(): Promise<number> {
    const row = await this.db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('enqueued_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
