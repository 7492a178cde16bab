import { resolve } from 'node:path';
import {
  ACCESS_CHANGED,
  enroll,
  lessonId,
  mark_goal,
  type OutputOf,
  type Principal,
  releaseContent,
  start_lesson,
  type ToolContract,
} from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import type { z } from 'zod';
import { startCourses } from '../../../../test/support/courses.ts';
import { EXAMPLES, publishMap, startLessons, studentOf } from '../../../../test/support/lessons.ts';
import { startEnrollment } from '../../../../test/support/stack.ts';

/** Enrollment, courses and lessons in this process, with the demo basics course published. */
export async function startHarness(name: string, lessonsConfig: Record<string, string> = {}) {
  const env: TestEnv = await createTestEnv(name);
  const enrollment = await startEnrollment(env);
  const courses = await startCourses(env);
  const lessons = await startLessons(env, lessonsConfig);
  const basics = await publishMap(env.bus, resolve(EXAMPLES, 'negotiation-basics'));

  /** Creates a student and enrolls them in a course (self-enrollment, personal space). */
  async function student(user: string, course = basics.course): Promise<Principal> {
    await enrollment.admin.upsertUser(user, `Ученик ${user}`, ['Student']);
    const p = studentOf(user, 'personal', `Ученик ${user}`);
    await eventually(async () => {
      const r = await env.bus.request(enroll, p, { course });
      if (!r.ok && r.error.code !== 'already_enrolled') throw new Error(r.error.code);
    });
    return p;
  }

  /** Calls a tool as a principal; returns the reply. */
  function call<C extends ToolContract>(tool: C, p: Principal, args: z.infer<C['input']>) {
    return env.bus.request(tool, p, args);
  }

  /** Calls a tool and returns its data, failing on a refusal. */
  async function must<C extends ToolContract>(tool: C, p: Principal, args: z.infer<C['input']>): Promise<OutputOf<C>> {
    const r = await env.bus.request(tool, p, args);
    if (!r.ok) throw new Error(`${tool.name} refused: ${r.error.code} ${r.error.message}`);
    return r.data as OutputOf<C>;
  }

  /** Starts a lesson by key and marks every required item done; returns the start reply. */
  async function cover(p: Principal, key: string, course = basics.course) {
    const s = await must(start_lesson, p, { lesson: lessonId(course, key) });
    for (const o of s.lesson_map) {
      for (const g of o.goals) {
        if (g.required)
          await must(mark_goal, p, { session: s.session, goal: g.key, status: 'done', evidence: `Показал ${g.key}` });
      }
    }
    return s;
  }

  /** The correct option of each question of a lesson's quiz in the active release. */
  async function answersOf(
    key: string,
    course = basics.course,
  ): Promise<Map<string, { right: string; wrong: string }>> {
    const r = await env.bus.request(releaseContent, null, { course });
    if (!r.ok) throw new Error(r.error.code);
    const lesson = r.data.content.chapters.flatMap((c) => c.lessons).find((l) => l.key === key);
    const out = new Map<string, { right: string; wrong: string }>();
    for (const q of lesson?.quiz?.questions ?? []) {
      out.set(q.key, { right: q.correct, wrong: q.options.find((o) => o.id !== q.correct)?.id as string });
    }
    return out;
  }

  /**
   * Waits (5 s at most) until lessons' access projection holds the user's latest access document
   * from enrollment's outbox: course access follows enrollment within one event's lag.
   */
  async function accessSettled(user: string) {
    await eventually(async () => {
      const want = await sql<{ v: string | null }>`select max((payload -> 'data' ->> 'version')::bigint)::text as v
        from outbox where subject = ${ACCESS_CHANGED} and payload -> 'data' ->> 'user' = ${user}`.execute(
        enrollment.db,
      );
      const got = await sql<{
        v: string;
      }>`select version::text as v from access_students where user_id = ${user}`.execute(lessons.db);
      if (got.rows[0]?.v !== want.rows[0]?.v) throw new Error(`access projection behind for ${user}`);
    }, 5000);
  }

  return {
    env,
    cover,
    accessSettled,
    answersOf,
    enrollment,
    courses,
    lessons,
    basics,
    student,
    call,
    must,
    async close() {
      await lessons.close();
      await courses.close();
      await enrollment.close();
      await env.cleanup();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** The lesson ids of the demo basics course in order. */
export const BASICS = ['why-prepare', 'interests', 'batna', 'opening', 'closing'] as const;
