import type { Kysely } from 'kysely';
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

  /** Creates the document when missing and locks it for a write (inside a transaction). */
  async lock(k: DocumentKey): Promise<DocumentState> {
    await this.db
      .insertInto('documents')
      .values({ user_id: k.user, course: k.course, space: k.space, artifact: k.artifact })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const row = await this.db
      .selectFrom('documents')
      .select('content')
      .where('user_id', '=', k.user)
      .where('course', '=', k.course)
      .where('space', '=', k.space)
      .where('artifact', '=', k.artifact)
      .forUpdate()
      .executeTakeFirstOrThrow();
    return row.content;
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
