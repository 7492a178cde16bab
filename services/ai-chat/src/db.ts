import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<string, string | undefined, string>;

/** Tables of the `ai_chat` schema. */
export interface AiChatDb {
  threads: {
    id: string;
    owner: string;
    title: string;
    created_at: Generated<string>;
    updated_at: Timestamp;
  };
  messages: {
    id: string;
    n: ColumnType<number, never, never>;
    thread_id: string;
    role: 'user' | 'assistant';
    content: string;
    model: string | null;
    tokens_in: number | null;
    tokens_out: number | null;
    created_at: Generated<string>;
  };
  tutor_conversations: {
    id: string;
    owner: string;
    lesson: string;
    session: string | null;
    title: string;
    course_title: string | null;
    lesson_title: string | null;
    created_at: Generated<string>;
    updated_at: Timestamp;
  };
  tutor_messages: {
    id: string;
    n: ColumnType<number, never, never>;
    conversation_id: string;
    role: 'user' | 'assistant' | 'tool';
    content: string;
    tool_calls: ColumnType<unknown, string | null | undefined, string | null> | null;
    tool_call_id: string | null;
    tool_name: string | null;
    /** Why an assistant message is not a whole answer (stopped, failed); null for one that ended. */
    note: string | null;
    created_at: Generated<string>;
  };
}
