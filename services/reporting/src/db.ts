import type { ColumnType } from 'kysely';

/** A jsonb column: read parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

/** A lesson of a course card as the read model keeps it. */
export interface ModelLesson {
  id: string;
  key: string;
  title: string;
}

/** Tables of one read-model generation (schema `reporting_g<N>`, see read-model.sql). */
export interface ReadModelDb {
  processed: { msg_id: string };
  users: { id: string; full_name: string; at: string };
  organizations: { name: string; title: string; suspended: boolean; at: string };
  memberships: { org: string; user_id: string; role: 'manager' | 'member' | null; at: string };
  courses: {
    course: string;
    revision: number;
    title: string;
    lessons: Json<ModelLesson[]>;
    lessons_total: number;
    /** The active release's document {key, title, blocks_total}; null without one. */
    document: Json<{ key: string; title: string; blocks_total: number }> | null;
  };
  enrollments: {
    user_id: string;
    course: string;
    space: string;
    organization: string | null;
    self_enrolled: boolean;
    mandatory: boolean | null;
    deadline: string | null;
    enrolled_at: string;
    assignment_at: string | null;
  };
  progress: {
    user_id: string;
    course: string;
    lessons_passed: number;
    lessons_total: number | null;
    completed: boolean;
    progress_at: string | null;
    last_activity: string | null;
  };
  sessions: {
    session: string;
    user_id: string;
    course: string;
    lesson: string;
    lesson_key: string;
    space: string;
    organization: string | null;
    status: string;
    started_at: string;
    objectives: Json<Array<{ key: string; text: string }>>;
    status_at: string;
  };
  objective_statuses: { session: string; objective: string; status: string; at: string };
  attempts: {
    attempt: string;
    user_id: string;
    course: string;
    lesson: string;
    lesson_key: string;
    session: string;
    space: string;
    number: number;
    status: string;
    score: number;
    passed: boolean;
    finished_at: string;
  };
  homework: {
    user_id: string;
    lesson: string;
    space: string;
    course: string;
    lesson_key: string;
    organization: string | null;
    status: string;
    version: number | null;
    due_at: string | null;
    at: string;
  };
  documents: {
    user_id: string;
    course: string;
    space: string;
    artifact: string;
    organization: string | null;
    title: string;
    blocks_total: number;
    blocks_filled: number;
    at: string;
  };
}

/** Tables of the `reporting` schema itself. */
export interface ReportingDb extends ReadModelDb {
  generation: {
    id: ColumnType<number, number | undefined, never>;
    current: string;
    built_at: ColumnType<string, string | undefined, string>;
  };
}
