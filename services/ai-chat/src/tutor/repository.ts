import { randomUUID } from 'node:crypto';
import type { TutorConversation, TutorMessage, TutorToolCall } from '@studium/contracts';
import { type Kysely, sql } from 'kysely';
import type { AiChatDb } from '../db.ts';

/** A stored message as the model sees it again. */
export interface TutorTurnMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls: TutorToolCall[] | null;
  tool_call_id: string | null;
}

/** What one model round adds: the assistant's message and, when it called tools, their results. */
export interface TutorRound {
  text: string;
  calls: TutorToolCall[];
  results: Array<{ id: string; name: string; content: string }>;
}

/** The model sees at most this many past messages of a conversation (a lesson is a few hundred). */
export const TUTOR_WINDOW = 400;

/** The course and lesson titles a conversation is listed by (null while unknown). */
export interface LessonTitles {
  course: string | null;
  lesson: string | null;
}

const CONVERSATION = [
  'id',
  'lesson',
  'session',
  'title',
  'course_title',
  'lesson_title',
  'created_at',
  'updated_at',
] as const;

/** All SQL of the tutor's conversations. */
export class TutorRepository {
  constructor(private readonly db: Kysely<AiChatDb>) {}

  /**
   * Saves the student's message: in the owner's conversation, or a new one for `lesson` when
   * `conversationId` is null. Undefined when the conversation is not the owner's.
   */
  async addMessage(
    owner: string,
    conversationId: string | null,
    lesson: string,
    title: string,
    content: string,
    titles: LessonTitles = { course: null, lesson: null },
  ): Promise<string | undefined> {
    if (conversationId === null) {
      const id = randomUUID();
      await sql`
        with c as (
          insert into tutor_conversations (id, owner, lesson, title, course_title, lesson_title)
          values (${id}, ${owner}, ${lesson}, ${title}, ${titles.course}, ${titles.lesson}) returning id)
        insert into tutor_messages (id, conversation_id, role, content) select ${randomUUID()}, c.id, 'user', ${content} from c`.execute(
        this.db,
      );
      return id;
    }
    const res = await sql`
      insert into tutor_messages (id, conversation_id, role, content)
      select ${randomUUID()}, c.id, 'user', ${content} from tutor_conversations c
      where c.id = ${conversationId} and c.owner = ${owner}`.execute(this.db);
    return Number(res.numAffectedRows ?? 0) > 0 ? conversationId : undefined;
  }

  /**
   * The conversation's last messages, oldest first, starting at a student's message: a window
   * never begins with tool results whose call it cut off. Replies that did not end are left out:
   * the model never reads a cut text as an answer it gave.
   */
  async window(conversationId: string): Promise<TutorTurnMessage[]> {
    const rows = await this.db
      .selectFrom('tutor_messages')
      .select(['role', 'content', 'tool_calls', 'tool_call_id'])
      .where('conversation_id', '=', conversationId)
      .where('note', 'is', null)
      .orderBy('n', 'desc')
      .limit(TUTOR_WINDOW)
      .execute();
    rows.reverse();
    const first = rows.findIndex((r) => r.role === 'user');
    return rows.slice(Math.max(0, first)).map((r) => ({
      role: r.role,
      content: r.content,
      tool_calls: (r.tool_calls as TutorToolCall[] | null) ?? null,
      tool_call_id: r.tool_call_id,
    }));
  }

  /**
   * Saves one model round (its text, calls and their results) in one transaction; false when the
   * conversation is gone. `started`: the session and titles of a lesson start_lesson opened in it.
   */
  async addRound(
    conversationId: string,
    round: TutorRound,
    started: { session: string; titles: LessonTitles } | null,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('tutor_conversations')
        .set({
          updated_at: sql<string>`now()`,
          ...(started
            ? {
                session: started.session,
                ...(started.titles.course ? { course_title: started.titles.course } : {}),
                ...(started.titles.lesson ? { lesson_title: started.titles.lesson } : {}),
              }
            : {}),
        })
        .where('id', '=', conversationId)
        .executeTakeFirst();
      if (!updated.numUpdatedRows) return false;
      await trx
        .insertInto('tutor_messages')
        .values({
          id: randomUUID(),
          conversation_id: conversationId,
          role: 'assistant',
          content: round.text,
          tool_calls: round.calls.length ? JSON.stringify(round.calls) : null,
        })
        .execute();
      for (const r of round.results) {
        await trx
          .insertInto('tutor_messages')
          .values({
            id: randomUUID(),
            conversation_id: conversationId,
            role: 'tool',
            content: r.content,
            tool_call_id: r.id,
            tool_name: r.name,
          })
          .execute();
      }
      return true;
    });
  }

  /**
   * Keeps a reply that did not end: the text it had (maybe none) and the note the student was
   * shown. Nothing is kept when the conversation is gone.
   */
  async addInterrupted(conversationId: string, text: string, note: string): Promise<void> {
    await sql`
      with c as (update tutor_conversations set updated_at = now() where id = ${conversationId} returning id)
      insert into tutor_messages (id, conversation_id, role, content, note)
      select ${randomUUID()}, c.id, 'assistant', ${text}, ${note} from c`.execute(this.db);
  }

  /** The owner's conversations, last activity first. */
  async conversations(owner: string, limit: number, offset: number) {
    const [items, count] = await Promise.all([
      this.db
        .selectFrom('tutor_conversations')
        .select(CONVERSATION)
        .where('owner', '=', owner)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('tutor_conversations')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('owner', '=', owner)
        .executeTakeFirstOrThrow(),
    ]);
    return { items: items as TutorConversation[], total: Number(count.total) };
  }

  /** The owner's conversation, or undefined. */
  async conversation(owner: string, id: string): Promise<TutorConversation | undefined> {
    return (await this.db
      .selectFrom('tutor_conversations')
      .select(CONVERSATION)
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst()) as TutorConversation | undefined;
  }

  /**
   * A conversation's messages, oldest first (assistant messages that only called tools are left
   * out; a reply that did not end is shown with its note even when it has no text).
   */
  async messages(id: string, limit: number, offset: number): Promise<{ items: TutorMessage[]; total: number }> {
    const shown = this.db
      .selectFrom('tutor_messages')
      .where('conversation_id', '=', id)
      .where((eb) => eb.or([eb('role', '!=', 'assistant'), eb('content', '!=', ''), eb('note', 'is not', null)]));
    const [items, count] = await Promise.all([
      shown
        .select(['id', 'role', 'content', 'tool_name as tool', 'note'])
        .orderBy('n', 'asc')
        .limit(limit)
        .offset(offset)
        .execute(),
      shown.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }
}
