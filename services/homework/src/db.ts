import type { ColumnType, Generated } from 'kysely';
import type { DocumentState } from './domain/document.ts';
import type { HomeworkStatus } from './domain/homework.ts';

type Timestamp = ColumnType<string, string | undefined, string>;
type NullableTimestamp = ColumnType<string | null, string | null | undefined, string | null>;
/** A jsonb column: parsed on select, written as a JSON string. */
type Json<T> = ColumnType<T, string | undefined, string>;

/** Tables of the `homework` schema. */
export interface HomeworkDb {
  documents: {
    user_id: string;
    course: string;
    space: string;
    artifact: string;
    content: Json<DocumentState>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  submissions: {
    id: string;
    user_id: string;
    course: string;
    lesson: string;
    lesson_key: string;
    space: string;
    organization: string | null;
    /** The student's full name when last known (migration 0002); null: show the login. */
    student_name: ColumnType<string | null, string | null | undefined, string | null>;
    curators: ColumnType<string[], string[] | undefined, string[]>;
    status: HomeworkStatus;
    assigned_at: NullableTimestamp;
    due_at: NullableTimestamp;
    version: number | null;
    answer: string | null;
    last_comment: string | null;
    submitted_at: NullableTimestamp;
    updated_at: Timestamp;
  };
  files: {
    id: string;
    submission: string;
    object: string;
    name: string;
    type: string;
    size: number;
    sha256: string;
    created_at: Timestamp;
  };
  versions: {
    submission: string;
    version: number;
    answer: string | null;
    files: string[];
    by: string;
    submitted_at: Timestamp;
  };
  journal: {
    id: Generated<number>;
    submission: string;
    event: string;
    actor: string | null;
    version: number | null;
    comment: string | null;
    at: Timestamp;
  };
  course_spaces: {
    user_id: string;
    course: string;
    space: string;
    at: string;
  };
}
