import type { Release, ReleaseWarning } from '@studium/contracts';
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<string, string | undefined, string>;
/** A jsonb column: parsed on select, written as a JSON string. */
type Json<T> = ColumnType<T, string, string>;
/** A nullable jsonb column. */
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** Status of a course: a draft, an announcement (published + upcoming) or open to students. */
export type CourseStatus = 'draft' | 'upcoming' | 'published';
/** Status of a curator note. */
export type NoteStatus = 'open' | 'done' | 'accepted';
/** Status of a student report. */
export type ReportStatus = 'new' | 'in_progress' | 'fixed' | 'rejected' | 'duplicate';
/** Whose move a note awaits. */
export type WaitingOn = 'agent' | 'author' | null;

/** Tables of the `courses` schema. */
export interface CoursesDb {
  courses: {
    id: string;
    course_key: string | null;
    title: string;
    summary: string;
    description: string;
    promise: string | null;
    objectives: Json<string[]>;
    status: ColumnType<CourseStatus, CourseStatus | undefined, CourseStatus>;
    created_by: string;
    instructors: string[];
    /** Logins that may study the course before it opens (the author cabinet grants them). */
    testers: ColumnType<string[], string[] | undefined, string[]>;
    legacy_lessons: Generated<number>;
    announced: Generated<boolean>;
    card_revision: ColumnType<number, number | undefined, number>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  releases: {
    id: string;
    course: string;
    version: number;
    digest: string;
    commit: string | null;
    document_key: string | null;
    lesson_count: number;
    published_at: Timestamp;
    published_by: string;
    active: boolean;
    content: NullableJson<Release>;
    warnings: Json<ReleaseWarning[]>;
  };
  notes: {
    id: string;
    course: string;
    target: string;
    lesson_key: string | null;
    release: string | null;
    version: number | null;
    quote: string | null;
    text: string;
    author: string;
    status: ColumnType<NoteStatus, NoteStatus | undefined, NoteStatus>;
    waiting_on: WaitingOn;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  note_replies: {
    id: Generated<number>;
    note: string;
    author: string;
    text: string;
    created_at: Timestamp;
  };
  lesson_sessions: {
    session: string;
    user_id: string;
    course: string;
    lesson: string;
    lesson_key: string;
    release: string | null;
    space: string;
    updated_at: Timestamp;
  };
  reports: {
    id: Generated<number>;
    course: string;
    user_id: string;
    session: string;
    space: string;
    lesson: string | null;
    lesson_key: string | null;
    lesson_title: string | null;
    release: string | null;
    kind: string;
    text: string;
    objective: string | null;
    question_key: string | null;
    status: ColumnType<ReportStatus, ReportStatus | undefined, ReportStatus>;
    resolution: string | null;
    resolved_at: ColumnType<string | null, string | null | undefined, string | null>;
    resolved_by: string | null;
    duplicate_of: number | null;
    delivered_at: ColumnType<string | null, string | null | undefined, string | null>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
}
