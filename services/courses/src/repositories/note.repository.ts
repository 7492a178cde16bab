import { type Kysely, type Selectable, sql } from 'kysely';
import type { CoursesDb, NoteStatus, WaitingOn } from '../db.ts';

/** A note with its thread, as course_notes shows it (the columns of `notes` but its update time). */
export type NoteRow = Omit<Selectable<CoursesDb['notes']>, 'updated_at'> & {
  replies: Array<{ author: string; text: string; created_at: string }>;
};

/** A note's state (reply_note, resolve_note, review). */
export interface NoteState {
  id: string;
  status: NoteStatus;
  waiting_on: WaitingOn;
  reply_count: number;
}

const replyCount = sql<number>`(select count(*)::int from note_replies r where r.note = notes.id)`;

/** All SQL of curator notes and their threads. */
export class NoteRepository {
  constructor(private readonly db: Kysely<CoursesDb>) {}

  async insert(row: Omit<NoteRow, 'created_at' | 'replies'>): Promise<void> {
    await this.db.insertInto('notes').values(row).execute();
  }

  /** The course's notes, oldest first, with their threads in one query. */
  async list(course: string, filter: { status: NoteStatus | null; lesson?: string }): Promise<NoteRow[]> {
    let q = this.db
      .selectFrom('notes as n')
      .select([
        'n.id',
        'n.course',
        'n.target',
        'n.lesson_key',
        'n.release',
        'n.version',
        'n.quote',
        'n.text',
        'n.author',
        'n.status',
        'n.waiting_on',
        'n.created_at',
        sql<NoteRow['replies']>`coalesce((
          select json_agg(json_build_object('author', r.author, 'text', r.text,
                   'created_at', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by r.id)
          from note_replies r where r.note = n.id), '[]'::json)`.as('replies'),
      ])
      .where('n.course', '=', course)
      .orderBy('n.created_at')
      .orderBy('n.id');
    if (filter.status) q = q.where('n.status', '=', filter.status);
    if (filter.lesson !== undefined) q = q.where('n.lesson_key', '=', filter.lesson);
    return q.execute();
  }

  /** Locks a note for a state change; undefined when there is none. */
  async lock(id: string): Promise<NoteState | undefined> {
    return this.db
      .selectFrom('notes')
      .select(['id', 'status', 'waiting_on', replyCount.as('reply_count')])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  /** The course of a note; undefined when there is none. */
  async courseOf(id: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('notes').select('course').where('id', '=', id).executeTakeFirst();
    return row?.course;
  }

  /** Appends a reply to the note's thread. */
  async addReply(note: string, author: string, text: string): Promise<void> {
    await this.db.insertInto('note_replies').values({ note, author, text }).execute();
  }

  /** Sets status and turn; returns the new state with the thread's length. */
  async setState(id: string, status: NoteStatus, waitingOn: WaitingOn): Promise<NoteState> {
    return this.db
      .updateTable('notes')
      .set({ status, waiting_on: waitingOn, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .returning(['id', 'status', 'waiting_on', replyCount.as('reply_count')])
      .executeTakeFirstOrThrow();
  }
}
