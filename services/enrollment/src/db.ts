import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<string, string | undefined, string>;
/** A jsonb column: read parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

/** A lesson of a catalog card (the active release), as stored in `catalog.lessons`. */
export interface CardLesson {
  id: string;
  key: string;
  title: string;
  chapter: string;
}

/** Tables of the `enrollment` schema. */
export interface EnrollmentDb {
  users: {
    id: string;
    full_name: string;
    roles: string[];
    selected_space: Generated<string>;
    created_at: Generated<string>;
    password_hash: Generated<string | null>;
    access_revoked_at: Generated<string | null>;
    access_version: Generated<string>;
  };
  access_announced: {
    id: number;
    at: Generated<string>;
  };
  organizations: {
    name: string;
    title: string;
    suspended: Generated<boolean>;
    created_at: Generated<string>;
  };
  memberships: {
    org: string;
    user_id: string;
    role: 'manager' | 'member';
    created_at: Generated<string>;
  };
  api_tokens: {
    id: string;
    user_id: string;
    token_hash: string;
    label: Generated<string>;
    scope: 'read' | 'write';
    expires_at: string | null;
    revoked_at: Timestamp | null;
    created_at: Generated<string>;
  };
  catalog: {
    course: string;
    revision: number;
    course_key: string | null;
    title: string;
    summary: string;
    description: string;
    status: 'draft' | 'upcoming' | 'published';
    objectives: Json<string[]>;
    release: string | null;
    version: number | null;
    lessons: Json<CardLesson[]>;
    lessons_total: number;
    /** Logins that may enroll before the course opens (migration 0008). */
    testers: ColumnType<string[], string[] | undefined, string[]>;
    changed_at: string;
    updated_at: Generated<string>;
  };
  org_courses: {
    course: string;
    org: string;
    created_at: Generated<string>;
  };
  programs: {
    key: string;
    title: string;
    ordered: boolean;
    created_at: Generated<string>;
  };
  program_courses: {
    program: string;
    position: number;
    course: string;
  };
  program_members: {
    program: string;
    user_id: string;
    created_at: Generated<string>;
  };
  enrollments: {
    user_id: string;
    course: string;
    space: string;
    organization: ColumnType<string | null, never, never>;
    self_enrolled: boolean;
    mandatory: boolean | null;
    deadline: string | null;
    enrolled_at: Generated<string>;
    lessons_done: Generated<number>;
    completed_at: string | null;
    /** When the lessons service's latest progress report happened (orders redeliveries). */
    progress_at: string | null;
    /** Keys of the lessons passed, from the latest progress report (migration 0007); null before one. */
    passed_lessons: string[] | null;
    /** Keys of the lessons the student can no longer pass (a required quiz exhausted; migration 0009). */
    failed_lessons: string[] | null;
    /** When nothing was left to study in the course: every lesson passed or failed (migration 0009). */
    finished_at: string | null;
    /** Made through a tester grant of a course not open yet (migration 0008). */
    tester: Generated<boolean>;
  };
  released_courses: {
    course: string;
    released_at: Generated<string>;
  };
  subscriptions: {
    user_id: string;
    course: string;
    notify: boolean;
    notified_at: string | null;
    created_at: Generated<string>;
    updated_at: Generated<string>;
  };
  mail_outbox: {
    id: Generated<number>;
    job_id: string;
    payload: Json<Record<string, unknown>>;
    created_at: Generated<string>;
    enqueued_at: Timestamp | null;
    /** Null while the delivery is open; set once the mailer reported the SMTP server's answer. */
    outcome: Generated<'sent' | 'rejected' | null>;
    settled_at: Timestamp | null;
    detail: Generated<string | null>;
    redrives: Generated<number>;
  };
  /** Change stamps of the course lists' data (migration 0004): '*' shared, else a user id. */
  list_stamps: {
    key: string;
    stamp: string;
  };
}
