import { randomUUID } from 'node:crypto';
import type { ChatMessage, ChatThread } from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type { AiChatDb } from '../db.ts';

/** A page of rows and the count of all of them. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** What an answer records besides its text. */
export interface AnswerMeta {
  model: string;
  tokensIn: number;
  tokensOut: number;
}

/** All SQL of threads and messages. */
export class ThreadRepository {
  constructor(private readonly db: Kysely<AiChatDb>) {}

  /**
   * Saves the teacher's message as `messageId`: in the owner's thread `threadId`, or in a new
   * thread titled `title` when it is null. Undefined when the thread is not the owner's (or does
   * not exist).
   */
  async addQuestion(
    owner: string,
    threadId: string | null,
    title: string,
    content: string,
    messageId: string,
  ): Promise<{ threadId: string; messageId: string } | undefined> {
    // One statement each way (no explicit transaction): the question is on the path to the first token.
    if (threadId === null) {
      const id = randomUUID();
      await sql`
        with t as (insert into threads (id, owner, title) values (${id}, ${owner}, ${title}) returning id)
        insert into messages (id, thread_id, role, content) select ${messageId}, t.id, 'user', ${content} from t`.execute(
        this.db,
      );
      return { threadId: id, messageId };
    }
    const res = await sql`
      insert into messages (id, thread_id, role, content)
      select ${messageId}, t.id, 'user', ${content} from threads t where t.id = ${threadId} and t.owner = ${owner}`.execute(
      this.db,
    );
    return Number(res.numAffectedRows ?? 0) > 0 ? { threadId, messageId } : undefined;
  }

  /**
   * Saves a finished answer and marks the thread's activity; false when the thread was deleted
   * while the answer was written.
   */
  async addAnswer(threadId: string, content: string, meta: AnswerMeta): Promise<string | false> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('threads')
        .set({ updated_at: sql<string>`now()` })
        .where('id', '=', threadId)
        .executeTakeFirst();
      if (!updated.numUpdatedRows) return false;
      const id = randomUUID();
      await trx
        .insertInto('messages')
        .values({
          id,
          thread_id: threadId,
          role: 'assistant',
          content,
          model: meta.model,
          tokens_in: meta.tokensIn,
          tokens_out: meta.tokensOut,
        })
        .execute();
      return id;
    });
  }

  /** The last `limit` messages of a thread, oldest first: what the assistant sees. */
  async window(threadId: string, limit: number): Promise<ChatMessage[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'role', 'content'])
      .where('thread_id', '=', threadId)
      .orderBy('n', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** The owner's threads, last activity first. */
  async threads(owner: string, limit: number, offset: number): Promise<Page<ChatThread>> {
    const [items, count] = await Promise.all([
      this.db
        .selectFrom('threads')
        .select(['id', 'title', 'created_at', 'updated_at'])
        .where('owner', '=', owner)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('threads')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('owner', '=', owner)
        .executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }

  /** True when the thread exists and is the owner's. */
  async owns(owner: string, threadId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('threads')
      .select('id')
      .where('id', '=', threadId)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A thread's messages, newest first. */
  async messages(threadId: string, limit: number, offset: number): Promise<Page<ChatMessage>> {
    const [items, count] = await Promise.all([
      this.db
        .selectFrom('messages')
        .select(['id', 'role', 'content'])
        .where('thread_id', '=', threadId)
        .orderBy('n', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('thread_id', '=', threadId)
        .executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }

  /** Deletes the owner's thread with its messages; false when there is none. */
  async delete(owner: string, threadId: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('threads')
      .where('id', '=', threadId)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
