import {
  course_reports,
  coursesTakeClosedReports,
  my_reports,
  type Principal,
  report_issue,
  resolve_report,
} from '@studium/contracts';
import { Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { sampleRelease, student } from './fixtures.ts';
import { call, publish, refusal, streamEvents } from './helpers.ts';
import { startSession } from './sessions.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;
let course: string;
let release: string;
let other: string;
let session: string;
const stranger: Principal = { ...student, user: 'stranger@test', full_name: 'Пётр Чужой' };

/** Reports as the student through report_issue in the session; returns the number. */
async function report(args: Partial<{ kind: string; text: string; question: string; objective: string }> = {}) {
  const out = await call(env, report_issue, { session, kind: 'stuck', text: 'Не понял пример', ...args }, student);
  return out.report;
}

async function reportCount(): Promise<number> {
  const row = await courses.database.db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  env = await createTestEnv('courses-reports');
  courses = await startCourses(env);
  ({ course, release } = await publish(env, sampleRelease('reports')));
  other = (await publish(env, sampleRelease('reports-other'))).course;
  session = await startSession(env, courses.database.db, { user: student.user, course, lessonKey: 'l-1', release });
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

describe('report_issue', () => {
  it('records the report on the session lesson, with the active release, and announces it', async () => {
    const id = await report({
      kind: 'quiz_question_issue',
      text: '  Вопрос двусмысленный  ',
      question: 'q-1',
      objective: 'o-1',
    });
    const [mine] = (await call(env, my_reports, { course }, student)).reports;
    expect(mine).toEqual({
      id,
      kind: 'quiz_question_issue',
      course,
      lesson: `${course}.l-1`,
      lesson_title: 'Цель разговора',
      objective: 'o-1',
      text: 'Вопрос двусмысленный',
      created_at: expect.any(String),
      status: 'new',
      resolution: null,
      resolved_at: null,
      duplicate_of: null,
    });
    const [listed] = (await call(env, course_reports, { course })).reports;
    expect(listed).toMatchObject({
      id,
      release,
      lesson_key: 'l-1',
      lesson_title: 'Цель разговора',
      question_key: 'q-1',
      status: 'new',
    });
    expect(JSON.stringify(listed)).not.toContain(student.user);
    await eventually(async () => {
      const created = (await streamEvents(env, 'evt.courses.report_created')).map((e) => e.data);
      expect(created).toContainEqual(
        expect.objectContaining({ report: id, user: student.user, course, lesson_key: 'l-1', session, release }),
      );
    });
  });

  it('cuts the text at 2000 characters and the objective at 140', async () => {
    const id = await report({ text: 'я'.repeat(2100), objective: 'ц'.repeat(200) });
    const mine = (await call(env, my_reports, { course }, student)).reports.find((r) => r.id === id);
    expect(mine?.text).toHaveLength(2000);
    expect(mine?.objective).toHaveLength(140);
  });

  it('refuses an unknown kind: unknown_report_kind with kind', async () => {
    const before = await reportCount();
    expect(await refusal(env, report_issue, { session, kind: 'bug', text: 'x' }, student)).toMatchObject({
      code: 'unknown_report_kind',
      kind: 'bug',
      allowed: expect.arrayContaining(['stuck', 'out_of_scope']),
    });
    expect(await reportCount()).toBe(before);
  });

  it('refuses an empty text: report_text_required', async () => {
    expect((await refusal(env, report_issue, { session, kind: 'stuck', text: ' \n ' }, student)).code).toBe(
      'report_text_required',
    );
  });

  it("refuses another student's session and an unknown one: not_your_session", async () => {
    const before = await reportCount();
    expect(await refusal(env, report_issue, { session, kind: 'stuck', text: 'x' }, stranger)).toMatchObject({
      code: 'not_your_session',
      session,
    });
    expect((await refusal(env, report_issue, { session: 'ses_none', kind: 'stuck', text: 'x' }, student)).code).toBe(
      'not_your_session',
    );
    expect(await reportCount()).toBe(before);
  });

  it('refuses a question not of this lesson quiz: question_mismatch with question', async () => {
    expect(
      await refusal(env, report_issue, { session, kind: 'quiz_question_issue', text: 'x', question: 'q-9' }, student),
    ).toMatchObject({ code: 'question_mismatch', question: 'q-9' });
    const l2 = await startSession(env, courses.database.db, { user: student.user, course, lessonKey: 'l-2', release });
    expect(
      await refusal(
        env,
        report_issue,
        { session: l2, kind: 'quiz_question_issue', text: 'x', question: 'q-1' },
        student,
      ),
    ).toMatchObject({ code: 'question_mismatch', question: 'q-1' });
  });
});

describe('my_reports', () => {
  it("shows only the caller's reports, newest first, and narrows to a course", async () => {
    const theirs = await startSession(env, courses.database.db, {
      user: stranger.user,
      course: other,
      lessonKey: 'l-1',
      release,
    });
    const foreign = (await call(env, report_issue, { session: theirs, kind: 'stuck', text: 'Чужой' }, stranger)).report;
    const newest = await report({ text: 'Самый свежий' });
    const mine = (await call(env, my_reports, {}, student)).reports;
    expect(mine[0]?.id).toBe(newest);
    expect(mine.map((r) => r.id)).not.toContain(foreign);
    expect((await call(env, my_reports, { course: other }, student)).reports).toEqual([]);
    expect((await call(env, my_reports, {}, stranger)).reports.map((r) => r.id)).toEqual([foreign]);
  });
});

describe('course_reports', () => {
  it('filters by kind, lesson key and status (open is new and in_progress)', async () => {
    const a = await report({ kind: 'material_issue', text: 'Ошибка в материале' });
    const b = await report({ kind: 'material_issue', text: 'Ещё ошибка' });
    await call(env, resolve_report, { report: b, status: 'in_progress' });
    const c = await report({ kind: 'material_issue', text: 'Третья' });
    await call(env, resolve_report, { report: c, status: 'rejected', resolution: 'Так задумано' });
    const ids = async (args: Record<string, string>) =>
      (await call(env, course_reports, { course, kind: 'material_issue', ...args })).reports.map((r) => r.id);
    expect(await ids({})).toEqual([c, b, a]);
    expect(await ids({ status: 'open' })).toEqual([b, a]);
    expect(await ids({ status: 'new' })).toEqual([a]);
    expect(await ids({ status: 'rejected' })).toEqual([c]);
    expect(await ids({ lesson: 'l-1' })).toEqual([c, b, a]);
    expect(await ids({ lesson: 'l-2' })).toEqual([]);
  });

  it('gives at most fifty, the freshest', async () => {
    for (let i = 0; i < 52; i++) await report({ kind: 'out_of_scope', text: `Вопрос ${i}` });
    const listed = (await call(env, course_reports, { course, kind: 'out_of_scope' })).reports;
    expect(listed).toHaveLength(50);
    expect(listed[0]?.text).toBe('Вопрос 51');
  });

  it('refuses an unknown course, kind and status', async () => {
    expect((await refusal(env, course_reports, { course: 'crs_none' })).code).toBe('course_not_found');
    expect(await refusal(env, course_reports, { course, kind: 'typo' })).toMatchObject({
      code: 'unknown_report_kind',
      kind: 'typo',
    });
    expect(await refusal(env, course_reports, { course, status: 'closed' })).toMatchObject({
      code: 'unknown_report_status',
      status: 'closed',
      allowed: ['open', 'new', 'in_progress', 'fixed', 'rejected', 'duplicate'],
    });
  });

  it('is not for students: 403', async () => {
    await expect(env.bus.request(course_reports, student, { course })).rejects.toMatchObject({ status: 403 });
    await expect(env.bus.request(resolve_report, student, { report: 1, status: 'fixed' })).rejects.toBeInstanceOf(
      Failure,
    );
  });
});

describe('resolve_report', () => {
  it('moves new → in_progress → fixed → in_progress, overwriting the answer, and announces each step', async () => {
    const id = await report();
    expect(
      await call(env, resolve_report, { report: String(id), status: 'in_progress', resolution: 'Смотрим' }),
    ).toEqual({ report: id, status: 'in_progress', resolution: 'Смотрим', resolved_at: null, duplicate_of: null });
    const fixed = await call(env, resolve_report, {
      report: id,
      status: 'fixed',
      resolution: 'Переписали пример в l-1',
    });
    expect(fixed).toMatchObject({
      status: 'fixed',
      resolution: 'Переписали пример в l-1',
      resolved_at: expect.any(String),
    });
    expect(await call(env, resolve_report, { report: id, status: 'in_progress' })).toMatchObject({
      status: 'in_progress',
      resolution: null,
      resolved_at: null,
    });
    await eventually(async () => {
      const steps = (await streamEvents(env, 'evt.courses.report_resolved'))
        .map((e) => e.data)
        .filter((d) => d.report === id)
        .map((d) => [d.previous_status, d.status]);
      expect(steps).toEqual([
        ['new', 'in_progress'],
        ['in_progress', 'fixed'],
        ['fixed', 'in_progress'],
      ]);
    });
  });

  it('refuses a closed report anything but in_progress, and any report its own status: invalid_report_transition', async () => {
    const id = await report();
    await call(env, resolve_report, { report: id, status: 'rejected', resolution: 'Так и задумано' });
    for (const status of ['rejected', 'fixed', 'duplicate']) {
      expect(
        await refusal(env, resolve_report, { report: id, status, resolution: 'x', duplicate_of: id - 1 }),
      ).toMatchObject({ code: 'invalid_report_transition', status: 'rejected', allowed: ['in_progress'] });
    }
    await call(env, resolve_report, { report: id, status: 'in_progress' });
    expect(await refusal(env, resolve_report, { report: id, status: 'in_progress' })).toMatchObject({
      code: 'invalid_report_transition',
      status: 'in_progress',
      allowed: ['fixed', 'rejected', 'duplicate'],
    });
  });

  it('refuses an unknown report and status', async () => {
    for (const report of [999_999, 'abc', 0]) {
      expect(await refusal(env, resolve_report, { report, status: 'fixed', resolution: 'x' })).toMatchObject({
        code: 'report_not_found',
      });
    }
    const id = await report();
    for (const status of ['new', 'done']) {
      expect(await refusal(env, resolve_report, { report: id, status })).toMatchObject({
        code: 'unknown_report_status',
        status,
        allowed: ['in_progress', 'fixed', 'rejected', 'duplicate'],
      });
    }
  });

  it('requires an answer for fixed and rejected: report_resolution_required', async () => {
    const id = await report();
    for (const status of ['fixed', 'rejected']) {
      expect((await refusal(env, resolve_report, { report: id, status, resolution: '  ' })).code).toBe(
        'report_resolution_required',
      );
    }
    const [row] = (await call(env, course_reports, { course })).reports.filter((r) => r.id === id);
    expect(row?.status).toBe('new');
  });

  it('checks duplicate_of: duplicate_of_required, invalid_duplicate_of (missing, other course, itself, a cycle)', async () => {
    const a = await report({ text: 'Оригинал' });
    const b = await report({ text: 'Дубль' });
    const foreignSession = await startSession(env, courses.database.db, {
      user: student.user,
      course: other,
      lessonKey: 'l-1',
      release,
    });
    const foreign = (await call(env, report_issue, { session: foreignSession, kind: 'stuck', text: 'x' }, student))
      .report;
    expect((await refusal(env, resolve_report, { report: b, status: 'duplicate' })).code).toBe('duplicate_of_required');
    for (const [duplicate_of, reason] of [
      [999_999, 'not_found'],
      ['x', 'not_found'],
      [foreign, 'other_course'],
      [b, 'self'],
    ] as const) {
      expect(await refusal(env, resolve_report, { report: b, status: 'duplicate', duplicate_of })).toMatchObject({
        code: 'invalid_duplicate_of',
        reason,
      });
    }
    await call(env, resolve_report, { report: b, status: 'duplicate', duplicate_of: a });
    expect(await refusal(env, resolve_report, { report: a, status: 'duplicate', duplicate_of: b })).toMatchObject({
      code: 'invalid_duplicate_of',
      reason: 'self',
    });
  });

  it('a duplicate without its own answer shows the answer of its original to the student', async () => {
    const original = await report({ text: 'Пример про отпуск неясен' });
    const dup = await report({ text: 'Непонятный пример' });
    expect(
      await call(env, resolve_report, { report: dup, status: 'duplicate', duplicate_of: String(original) }),
    ).toMatchObject({
      status: 'duplicate',
      resolution: null,
      duplicate_of: original,
    });
    await call(env, resolve_report, { report: original, status: 'fixed', resolution: 'Заменили пример' });
    const mine = (await call(env, my_reports, { course }, student)).reports.find((r) => r.id === dup);
    expect(mine).toMatchObject({ status: 'duplicate', resolution: 'Заменили пример', duplicate_of: original });
    // The curator sees each report's own answer.
    expect((await call(env, course_reports, { course })).reports.find((r) => r.id === dup)?.resolution).toBeNull();
  });
});

describe('courses.take_closed_reports', () => {
  it('hands each closed report to start_lesson once; a new closing hands it again', async () => {
    const s = await startSession(env, courses.database.db, { user: 'fresh@test', course, lessonKey: 'l-3', release });
    const who = { ...student, user: 'fresh@test' };
    const open = (await call(env, report_issue, { session: s, kind: 'stuck', text: 'Открытый' }, who)).report;
    const closed = (await call(env, report_issue, { session: s, kind: 'stuck', text: 'Закрытый' }, who)).report;
    await call(env, resolve_report, { report: open, status: 'in_progress', resolution: 'Смотрим' });
    await call(env, resolve_report, { report: closed, status: 'rejected', resolution: 'Курс верен' });
    const take = async () =>
      (await call(env, coursesTakeClosedReports, { user: who.user, course }, who)).reports.map((r) => [
        r.id,
        r.status,
        r.resolution,
      ]);
    expect(await call(env, coursesTakeClosedReports, { user: who.user, course: other }, who)).toEqual({ reports: [] });
    // Only inside the student's own call: no principal is a 401 (and takes nothing).
    await expect(env.bus.request(coursesTakeClosedReports, null, { user: who.user, course })).rejects.toMatchObject({
      status: 401,
    });
    const [first, second] = await Promise.all([take(), take()]);
    expect([...first, ...second]).toEqual([[closed, 'rejected', 'Курс верен']]);
    expect(await take()).toEqual([]);
    await call(env, resolve_report, { report: closed, status: 'in_progress' });
    expect(await take()).toEqual([]);
    await call(env, resolve_report, { report: closed, status: 'fixed', resolution: 'Всё же поправили' });
    expect(await take()).toEqual([[closed, 'fixed', 'Всё же поправили']]);
    // my_reports still shows it: delivery only concerns start_lesson.
    expect((await call(env, my_reports, { course }, who)).reports.map((r) => r.id)).toEqual([closed, open]);
  });
});

describe('report_issue on a session of an older release', () => {
  it("checks the question against the session's release, not a newer one", async () => {
    const v1 = await publish(env, sampleRelease('reports-v'));
    const old = await startSession(env, courses.database.db, {
      user: student.user,
      course: v1.course,
      lessonKey: 'l-1',
      release: v1.release,
    });
    const next = sampleRelease('reports-v');
    const quiz = next.chapters[0]?.lessons[0]?.quiz;
    if (!quiz) throw new Error('the sample lesson l-1 has a quiz');
    quiz.questions = quiz.questions.filter((q) => q.key !== 'q-1');
    const v2 = await publish(env, next);
    expect(v2.release).not.toBe(v1.release);
    const fresh = await startSession(env, courses.database.db, {
      user: student.user,
      course: v1.course,
      lessonKey: 'l-1',
      release: v2.release,
    });
    const args = { kind: 'quiz_question_issue', text: 'Вопрос неясен', question: 'q-1' };
    const reported = await call(env, report_issue, { session: old, ...args }, student);
    expect((await refusal(env, report_issue, { session: fresh, ...args }, student)).code).toBe('question_mismatch');
    const listed = (await call(env, course_reports, { course: v1.course })).reports;
    // The report is filed against the release active when it was sent.
    expect(listed).toEqual([
      expect.objectContaining({ id: reported.report, release: v2.release, question_key: 'q-1' }),
    ]);
  });
});
