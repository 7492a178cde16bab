import type { Kysely, Transaction } from 'kysely';
import type { EnrollmentDb } from '../db.ts';

/** A pending release e-mail: the BullMQ job id and payload. */
export interface MailRow {
  id: number;
  job_id: string;
  payload: Record<string, unknown>;
}

/** All SQL of the release e-mail outbox. */
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

  /** Runs `fn` on a locked batch of pending rows (SKIP LOCKED: replicas share the work) and marks them enqueued. */
  async relayBatch(limit: number, fn: (rows: MailRow[]) => Promise<void>): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('mail_outbox')
        .select(['id', 'job_id', 'payload'])
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
        .set({ enqueued_at: new Date().toISOString() })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return rows.length;
    });
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
