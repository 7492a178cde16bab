import { type Kysely, sql } from 'kysely';
import type { HomeworkDb } from '../db.ts';
import type { DocumentState } from '../domain/document.ts';

/** Which document: a student's, of a course, in a space, by document key. */
export interface DocumentKey {
  user: string;
  course: string;
  space: string;
  artifact: string;
}

const EMPTY: DocumentState = { sections: {} };

/** All SQL of course documents. */
export class DocumentRepository {
  constructor(private readonly db: Kysely<HomeworkDb>) {}

  /** The document's content; empty when nothing was written yet. */
  async get(k: DocumentKey): Promise<DocumentState> {
    const row = await this.db
      .selectFrom('documents')
      .select('content')
      .where('user_id', '=', k.user)
      .where('course', '=', k.course)
      .where('space', '=', k.space)
      .where('artifact', '=', k.artifact)
      .executeTakeFirst();
    return row?.content ?? EMPTY;
  }

  /**
   * Locks the document for a write (inside a transaction), creating it when missing: one
   * statement when it exists (every write after the first).
   */
  async lock(k: DocumentKey): Promise<DocumentState> {
    const locked = () =>
      this.db
        .selectFrom('documents')
        .select('content')
        .where('user_id', '=', k.user)
        .where('course', '=', k.course)
        .where('space', '=', k.space)
        .where('artifact', '=', k.artifact)
        .forUpdate()
        .executeTakeFirst();
    const row = await locked();
    if (row) return row.content;
    await this.db
      .insertInto('documents')
      .values({ user_id: k.user, course: k.course, space: k.space, artifact: k.artifact })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const created = await locked();
    if (!created) throw new Error('document missing right after its insert');
    return created.content;
  }

  /** {@link save} with the event of the change recorded in the outbox, one statement. */
  async saveWithEvent(k: DocumentKey, content: DocumentState, event: { subject: string; envelope: unknown }) {
    await sql`with saved as (
        update documents set content = ${JSON.stringify(content)}::jsonb, updated_at = ${new Date().toISOString()}
        where user_id = ${k.user} and course = ${k.course} and space = ${k.space} and artifact = ${k.artifact}),
      e as (insert into outbox (subject, payload) values (${event.subject}, ${JSON.stringify(event.envelope)}::jsonb)
        returning 1)
      select count(*) from e`.execute(this.db);
  }

  async save(k: DocumentKey, content: DocumentState): Promise<void> {
    await this.db
      .updateTable('documents')
      .set({ content: JSON.stringify(content), updated_at: new Date().toISOString() })
      .where('user_id', '=', k.user)
      .where('course', '=', k.course)
      .where('space', '=', k.space)
      .where('artifact', '=', k.artifact)
      .execute();
  }
}
