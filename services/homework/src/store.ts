import type { Refusal } from '@studium/contracts';
import type { Kysely, Transaction } from 'kysely';
import type { HomeworkDb } from './db.ts';

class Refused extends Error {
  constructor(readonly reply: { ok: false; error: Refusal }) {
    super('refused');
  }
}

/**
 * Runs fn in one transaction that commits only when fn answers `ok`: a refusal rolls back whatever
 * fn wrote before deciding (a created empty document, a lock row), so a refused write changes nothing.
 */
export async function transact<T extends { ok: boolean }>(
  db: Kysely<HomeworkDb>,
  fn: (trx: Transaction<HomeworkDb>) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction().execute(async (trx) => {
      const reply = await fn(trx);
      if (!reply.ok) throw new Refused(reply as unknown as { ok: false; error: Refusal });
      return reply;
    });
  } catch (err) {
    if (err instanceof Refused) return err.reply as unknown as T;
    throw err;
  }
}
