import {
  type CourseCardChanged,
  type DocumentUpdated,
  events,
  type GoalMarked,
  type HomeworkChanged,
  type LessonPassed,
  type Principal,
  type QuizAttemptCancelled,
  type QuizAttemptFinished,
  type SessionStarted,
  type ToolContract,
} from '@studium/contracts';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import type { TestEnv } from '@studium/testing';
import { Registry } from 'prom-client';
import { controlled } from '../../../../test/support/stack.ts';
import { createApp, MIGRATIONS, type ReportingApp } from '../../src/app.ts';
import { SCHEMA } from '../../src/config.ts';
import type { ReportingDb } from '../../src/db.ts';

/** The real reporting service in this process, on the test's prefix and database. */
export async function startReporting(env: TestEnv, overrides: Record<string, string> = {}) {
  const database = openDatabase<ReportingDb>(env.databaseUrl, SCHEMA, 6);
  await migrate(database.pool, SCHEMA, [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const { nc, bus } = await env.serviceBus('reporting', { timeoutMs: 5000, log: env.log });
  const metrics = new Registry();
  const config = { SUBJECT_PREFIX: env.prefix, ...overrides } as never;
  const start = () => createApp({ bus, nc, database, log: env.log, config, metrics });
  return Object.assign(await controlled<ReportingApp>(start, database), { database, db: database.db, metrics });
}

/** Calls a tool on the bus as the edge would; returns the reply (data or refusal). */
export async function call<C extends ToolContract>(env: TestEnv, tool: C, principal: Principal, args: object = {}) {
  return env.bus.request(tool, principal, args as never);
}

/** A principal as the edge sends it. */
export function who(user: string, space = 'personal'): Principal {
  return { user, full_name: user, roles: ['Student'], scope: 'write', space };
}

/** A course card whose lesson ids follow the contract (`<course>.<key>`). */
export function courseCard(course: string, lessons: number, revision = 1): CourseCardChanged {
  return {
    course,
    revision,
    course_key: course,
    title: `Курс ${course}`,
    summary: '',
    description: '',
    status: 'published',
    objectives: [],
    release: `${course}-r${revision}`,
    version: revision,
    lessons: Array.from({ length: lessons }, (_, i) => ({
      id: `${course}.l${i + 1}`,
      key: `l${i + 1}`,
      title: `Урок ${i + 1} курса ${course}`,
      chapter: 'Глава 1',
    })),
    at: new Date().toISOString(),
  };
}

/** Builders of the lessons and homework events, as their producers emit them. */
export function lessonEvents(user: string, course: string, space: string) {
  const organization = space === 'personal' ? null : space;
  const place = (n: number, session: string, at: string) => ({
    user,
    course,
    lesson: `${course}.l${n}`,
    lesson_key: `l${n}`,
    session,
    space,
    organization,
    at,
  });
  return {
    started: (n: number, session: string, at: string): SessionStarted => ({
      ...place(n, session, at),
      release: `${course}-r1`,
      version: 1,
      channel: 'agent',
      opening: 'new_lesson',
      objectives: [
        { key: `l${n}-D1`, text: 'Понимает термин' },
        { key: `l${n}-D2`, text: 'Применяет на примере' },
      ],
    }),
    marked: (n: number, session: string, objective: string, status: string, at: string): GoalMarked => ({
      ...place(n, session, at),
      objective,
      goal: 'term:T1',
      status: 'done',
      objective_status: status,
    }),
    covered: (n: number, session: string, at: string) => place(n, session, at),
    passed: (n: number, session: string, at: string, passedCount: number, total: number): LessonPassed => ({
      ...place(n, session, at),
      release: `${course}-r1`,
      version: 1,
      via: 'quiz',
      late: false,
      lessons_passed: passedCount,
      lessons_total: total,
      course_completed: passedCount >= total,
    }),
    finished: (
      n: number,
      session: string,
      attempt: string,
      num: number,
      score: number,
      at: string,
    ): QuizAttemptFinished => ({
      ...place(n, session, at),
      attempt,
      number: num,
      score,
      passed: score >= 0.7,
    }),
    cancelled: (n: number, session: string, attempt: string, num: number, at: string): QuizAttemptCancelled => ({
      ...place(n, session, at),
      attempt,
      number: num,
      reason: 'quiz_changed',
    }),
    homework: (n: number, status: HomeworkChanged['status'], version: number | null, at: string): HomeworkChanged => ({
      submission: `sub_${n}`,
      user,
      course,
      lesson: `${course}.l${n}`,
      space,
      organization,
      status,
      version,
      due_at: '2030-01-01T00:00:00.000Z',
      by: null,
      comment: null,
      at,
    }),
    document: (artifact: string, total: number, filled: number, at: string): DocumentUpdated => ({
      user,
      course,
      space,
      organization,
      artifact,
      title: `Документ ${artifact}`,
      blocks_total: total,
      blocks_filled: filled,
      at,
    }),
  };
}

/** Event subjects by short name. */
export const SUBJECTS = {
  card: events['courses.course_card_changed'].subject,
  started: events['lessons.session_started'].subject,
  marked: events['lessons.goal_marked'].subject,
  covered: events['lessons.lesson_covered'].subject,
  passed: events['lessons.lesson_passed'].subject,
  finished: events['lessons.quiz_attempt_finished'].subject,
  cancelled: events['lessons.quiz_attempt_cancelled'].subject,
  homework: events['homework.submitted'].subject,
  document: events['homework.document_updated'].subject,
} as const;
