import type { ColumnType, Generated } from 'kysely';
import type { GoalStatus, RunStatus } from './domain/lesson-progress.ts';
import type { IssuedQuestion } from './domain/quiz.ts';

type Timestamp = ColumnType<string, string | undefined, string>;
/** A jsonb column: read parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export type SessionStatus = 'open' | 'closed' | 'abandoned';
export type Channel = 'agent' | 'web';
export type AttemptStatus = 'open' | 'finished' | 'cancelled';
export type CancelReason = 'quiz_changed' | 'attempt_outdated' | 'lesson_removed';

/** Tables of the `lessons` schema (migrations/0001_runs.sql). */
export interface LessonsDb {
  active_releases: {
    course: string;
    release: string;
    version: number;
    /** Order of the activation in courses (see migrations/0003_release_activation.sql). */
    activation: Generated<string>;
    updated_at: Generated<string>;
  };
  runs: {
    id: string;
    user_id: string;
    user_name: string;
    course: string;
    lesson_key: string;
    lesson_title: string | null;
    status: Generated<RunStatus>;
    accepted_at: Timestamp;
    started_at: string | null;
    covered_at: string | null;
    passed_at: string | null;
    passed_late: boolean | null;
    resume_from: string | null;
    archived_at: string | null;
  };
  sessions: {
    id: string;
    run_id: string;
    user_id: string;
    course: string;
    lesson_key: string;
    space: string;
    organization: string | null;
    channel: Channel;
    status: Generated<SessionStatus>;
    release: string;
    started_at: Timestamp;
    last_activity_at: Timestamp;
    closed_at: string | null;
    signals: ColumnType<string[], string | undefined, string>;
  };
  goal_marks: {
    run_id: string;
    goal: string;
    objective: string;
    status: GoalStatus;
    evidence: string | null;
    session_id: string;
    marked_at: Timestamp;
  };
  quiz_attempts: {
    id: string;
    run_id: string;
    session_id: string;
    user_id: string;
    course: string;
    lesson_key: string;
    number: number;
    release: string;
    questions: Json<IssuedQuestion[]>;
    threshold: number;
    status: Generated<AttemptStatus>;
    score: number | null;
    passed: boolean | null;
    cancel_reason: CancelReason | null;
    cancel_reported: Generated<boolean>;
    started_at: Timestamp;
    finished_at: string | null;
  };
  quiz_answers: {
    attempt_id: string;
    question: string;
    answer: string;
    student_words: string;
    correct: boolean;
    answered_at: Timestamp;
  };
}
