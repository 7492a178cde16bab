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

  /** Runs `fn` on a locked batch of never-enqueued rows (SKIP LOCKED: replicas share the work) and marks them enqueued. */
  async relayBatch(limit: number, fn: (rows: MailRow[]) => Promise<void>): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('mail_outbox')
        .select(['id', 'job_id', 'payload', 'redrives'])
        .where('enqueued_at', 'is', null)
        .orderBy('id')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (!rows.length) return 0;
      await fn(rows);
      await trx
        .updateTable('mail_outbox')
        .set({ enqueued_at: sql`now()` })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return rows.length;
    });
  }

  /**
   * Runs `fn` on a locked batch of open deliveries enqueued more than `olderThanMs` ago; `fn`
   * returns the rows it enqueued again, which get one more re-drive and a fresh enqueued_at.
   */
  async redriveBatch(
    limit: number,
    olderThanMs: number,
    fn: (rows: MailRow[]) => Promise<MailRow[]>,
  ): Promise<{ seen: number; redriven: number }> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('mail_outbox')
        .select(['id', 'job_id', 'payload', 'redrives'])
        .where('outcome', 'is', null)
        .where('enqueued_at', '<', sql<string>`now() - make_interval(secs => ${olderThanMs / 1000})`)
        .orderBy('enqueued_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (!rows.length) return { seen: 0, redriven: 0 };
      const again = await fn(rows);
      // Every row seen moves to the back of the line; only the re-enqueued ones count a re-drive.
      await trx
        .updateTable('mail_outbox')
        .set({ enqueued_at: sql`now()` })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      if (again.length) {
        await trx
          .updateTable('mail_outbox')
          .set({ redrives: sql`redrives + 1` })
          .where(
            'id',
            'in',
            again.map((r) => r.id),
          )
          .execute();
      }
      return { seen: rows.length, redriven: again.length };
    });
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
