import {
  accept_homework,
  artifact,
  cancel_acceptance,
  fill_document,
  homework_queue,
  homework_submission,
  homeworkEmptyBlocks,
  homeworkLessonContext,
  my_homework,
  return_homework,
  submit_homework,
  update_artifact,
  upload_homework_file,
} from '@studium/contracts';
import { Failure } from '@studium/platform';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, refusal } from './support/call.ts';
import { LESSON_PASSED, lessonPassed, publishEvent, SESSION_STARTED, sessionStarted } from './support/events.ts';
import { CURATOR, person, startHomeworkStack } from './support/stack.ts';

let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
const anna = person('anna@hw');
const boris = person('boris@hw');
const other = person('other@hw', ['Course Creator']);
const moderator = person('mod@hw', ['Moderator']);

beforeAll(async () => {
  env = await createTestEnv('hw-homework');
  stack = await startHomeworkStack(env);
}, 30_000);

afterAll(async () => {
  await stack?.close();
  await env?.cleanup();
});

const submissionRow = (lesson: string, space: string) =>
  stack.homework.db
    .selectFrom('submissions')
    .selectAll()
    .where('user_id', '=', 'anna@hw')
    .where('lesson', '=', lesson)
    .where('space', '=', space)
    .executeTakeFirst();

describe('assignment on lessons.lesson_passed', () => {
  it('assigns the homework in the session space with the due date of the rule, once', async () => {
    const at = '2020-01-01T10:00:00.000Z';
    const passed = { ...lessonPassed(stack, 'anna@hw', 'l-text', 'acme', at), user_name: 'Анна Лесная' };
    const event = await publishEvent(env, LESSON_PASSED, passed);
    const row = await eventually(async () => {
      const r = await submissionRow(stack.lesson('l-text'), 'acme');
      if (!r) throw new Error('not assigned yet');
      return r;
    });
    expect(row).toMatchObject({ status: 'Assigned', due_at: '2020-01-08T10:00:00.000Z', version: null });
    // The pass names the student, so the curator's queue shows who it is before any hand-in.
    const assigned = await call(env, homework_queue, CURATOR, { status: 'Assigned' });
    expect(assigned.items.find((i) => i.submission === row.id)).toMatchObject({
      student: 'anna@hw',
      student_name: 'Анна Лесная',
      course_title: 'Договорённости в команде',
      lesson_title: 'Текстовая домашка',
    });
    // A redelivered event (same id) and a lesson without homework change nothing.
    await publishEvent(env, LESSON_PASSED, lessonPassed(stack, 'anna@hw', 'l-text', 'acme', at), `${event.id}`);
    await publishEvent(env, LESSON_PASSED, lessonPassed(stack, 'anna@hw', 'l-none', 'acme'));
    await publishEvent(env, SESSION_STARTED, sessionStarted(stack, 'anna@hw', 'l-text', 'acme'));
    await eventually(async () => {
      const r = await stack.homework.db
        .selectFrom('course_spaces')
        .select('space')
        .where('user_id', '=', 'anna@hw')
        .executeTakeFirst();
      if (r?.space !== 'acme') throw new Error('session space not recorded yet');
    });
    const journal = await stack.homework.db
      .selectFrom('journal')
      .select('event')
      .where('submission', '=', row.id)
      .execute();
    expect(journal.map((j) => j.event)).toEqual(['assigned']);
    expect(await submissionRow(stack.lesson('l-none'), 'acme')).toBeUndefined();
  });

  it('my_homework shows it overdue in the session space (no space given)', async () => {
    const list = await call(env, my_homework, anna, { course: stack.course });
    expect(list.space).toBe('acme');
    expect(list.items).toEqual([
      expect.objectContaining({
        lesson: stack.lesson('l-text'),
        lesson_title: 'Текстовая домашка',
        course_title: 'Договорённости в команде',
        status: 'Assigned',
        overdue: true,
        version: null,
        last_comment: null,
      }),
    ]);
    expect(list.items[0]?.lesson_url).toContain(encodeURIComponent(stack.lesson('l-text')));
  });
});

describe('submit_homework and the curator review', () => {
  let submission: string;

  it('each save is a new version; the text replaces the previous one', async () => {
    const first = await call(env, submit_homework, anna, { lesson: stack.lesson('l-text'), answer: 'Встречу провёл' });
    expect(first.space).toBe('acme');
    expect(first.submission).toMatchObject({
      status: 'Submitted',
      version: 1,
      answer: 'Встречу провёл',
      overdue: false,
    });
    const second = await call(env, submit_homework, anna, {
      lesson: stack.lesson('l-text'),
      answer: 'Встречу провёл, спонсор согласовал бюджет',
    });
    expect(second.submission.version).toBe(2);
    expect(second.submission.versions?.map((v) => v.answer)).toEqual([
      'Встречу провёл',
      'Встречу провёл, спонсор согласовал бюджет',
    ]);
    expect(second.submission.events.map((e) => e.event)).toEqual(['assigned', 'submitted', 'submitted']);
    submission = String((second.submission as Record<string, unknown>).submission);
  });

  it('the curator sees it in the queue, returns it with a comment; the student sees the comment', async () => {
    const queue = await call(env, homework_queue, CURATOR, {});
    expect(queue.items.map((i) => i.submission)).toContain(submission);
    // People read titles and names: the student's hand-in gave the name of its signed principal.
    expect(queue.items.find((i) => i.submission === submission)).toMatchObject({
      course_title: 'Договорённости в команде',
      lesson_title: 'Текстовая домашка',
      student_name: 'anna@hw',
    });
    // The filter offers the courses one may review, by title: none to an author who leads none.
    expect(queue.courses).toEqual([{ course: stack.course, title: 'Договорённости в команде' }]);
    expect((await call(env, homework_queue, other, {})).courses).toEqual([]);
    expect((await call(env, homework_queue, moderator, {})).courses).toEqual(queue.courses);
    const byCourse = await call(env, homework_queue, CURATOR, { course: stack.course });
    expect(byCourse.items).toHaveLength(1);
    expect((await call(env, homework_queue, other, {})).items).toEqual([]);
    expect((await call(env, homework_queue, moderator, {})).items.map((i) => i.submission)).toContain(submission);
    const full = await call(env, homework_submission, CURATOR, { submission });
    expect(full.versions).toHaveLength(2);
    await refusal(env, return_homework, CURATOR, { submission, comment: '   ' }, 'comment_required');
    const returned = await call(env, return_homework, CURATOR, { submission, comment: 'Добавьте, кто отвечает' });
    expect(returned).toMatchObject({ status: 'Returned', last_comment: 'Добавьте, кто отвечает' });
    const mine = await call(env, my_homework, anna, { lesson: stack.lesson('l-text') });
    expect(mine.items[0]).toMatchObject({ status: 'Returned', last_comment: 'Добавьте, кто отвечает', overdue: true });
    expect(mine.homework).toMatchObject({ answer_mode: 'text', due: '7 дней после закрытия урока' });
    expect(mine.submission).toMatchObject({ answer: 'Встречу провёл, спонсор согласовал бюджет', version: 2 });
    // start_lesson of the next lesson gets it from lesson_context.
    const ctx = await call(env, homeworkLessonContext, anna, {
      user: 'anna@hw',
      course: stack.course,
      release: stack.release,
      lesson: 'l-both',
      previous_lesson: 'l-text',
      space: 'acme',
    });
    expect(ctx.previous_homework).toMatchObject({
      lesson: stack.lesson('l-text'),
      status: 'Returned',
      version: 2,
      overdue: true,
      last_comment: 'Добавьте, кто отвечает',
    });
    expect(ctx.previous_homework).not.toHaveProperty('answer');
  });

  it('refuses curator actions that do not fit the status, and authors who do not lead the course', async () => {
    expect(await refusal(env, accept_homework, CURATOR, { submission }, 'invalid_transition')).toMatchObject({
      status: 'Returned',
      allowed: ['Submitted'],
    });
    await refusal(env, cancel_acceptance, CURATOR, { submission, comment: 'x' }, 'invalid_transition');
    await refusal(env, homework_submission, CURATOR, { submission: 'nope' }, 'submission_not_found');
    await refusal(env, return_homework, CURATOR, { submission: 'nope', comment: 'x' }, 'submission_not_found');
    await expect(env.bus.request(homework_submission, other, { submission })).rejects.toMatchObject({ status: 403 });
    await expect(env.bus.request(homework_queue, anna, {})).rejects.toBeInstanceOf(Failure);
    await refusal(env, homework_queue, CURATOR, { status: 'Lost' }, 'homework_status_unknown');
    await refusal(env, homework_queue, CURATOR, { course: 'no-such-course' }, 'course_not_found');
  });

  it('resubmit, accept, accepted_locked, cancel acceptance; every version stays readable', async () => {
    await call(env, submit_homework, anna, { lesson: stack.lesson('l-text'), answer: 'Отвечает Аня, срок пятница' });
    const accepted = await call(env, accept_homework, CURATOR, { submission, comment: 'Отлично' });
    expect(accepted.status).toBe('Accepted');
    await refusal(
      env,
      submit_homework,
      anna,
      { lesson: stack.lesson('l-text'), answer: 'ещё правка' },
      'accepted_locked',
    );
    await refusal(env, cancel_acceptance, CURATOR, { submission, comment: '' }, 'comment_required');
    const cancelled = await call(env, cancel_acceptance, CURATOR, { submission, comment: 'Нужен срок точнее' });
    expect(cancelled).toMatchObject({ status: 'Returned', last_comment: 'Нужен срок точнее' });
    expect(cancelled.versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(cancelled.events.map((e) => e.event)).toEqual([
      'assigned',
      'submitted',
      'submitted',
      'returned',
      'submitted',
      'accepted',
      'acceptance_cancelled',
    ]);
  });
});

describe('many versions', () => {
  it('every version stays; views carry the latest ten answers, and any one is read whole by number', async () => {
    const lesson = stack.lesson('l-text');
    let last: Awaited<ReturnType<typeof call<typeof submit_homework>>> | undefined;
    for (let i = 1; i <= 12; i++) {
      last = await call(env, submit_homework, anna, { lesson, answer: `Ответ ${i}`, space: 'personal' });
    }
    const versions = last?.submission.versions ?? [];
    expect(versions.map((v) => v.answer)).toEqual([
      null,
      null,
      ...Array.from({ length: 10 }, (_, i) => `Ответ ${i + 3}`),
    ]);
    expect(versions[0]).toMatchObject({ answer_omitted: true });
    const id = String((last?.submission as Record<string, unknown> | undefined)?.submission);
    const one = await call(env, homework_submission, CURATOR, { submission: id, version: 1 });
    expect(one.versions[0]?.answer).toBe('Ответ 1');
  });
});

describe('submit_homework refusals', () => {
  it('answers every refusal of the spec', async () => {
    const l = stack.lesson;
    await refusal(env, submit_homework, anna, { lesson: l('l-none'), answer: 'x' }, 'no_homework');
    await refusal(env, submit_homework, anna, { lesson: l('l-files'), answer: 'x' }, 'answer_mode');
    await refusal(env, submit_homework, anna, { lesson: l('l-both'), answer: '  ' }, 'empty_answer');
    expect(
      await refusal(
        env,
        submit_homework,
        anna,
        { lesson: l('l-text'), answer: 'я'.repeat(20_001) },
        'answer_too_large',
      ),
    ).toMatchObject({ limit: 20_000, length: 20_001 });
    await refusal(env, submit_homework, anna, { lesson: 'garbage', answer: 'x' }, 'lesson_not_found');
    await refusal(env, submit_homework, anna, { lesson: `${stack.course}.nope`, answer: 'x' }, 'lesson_not_found');
    await refusal(env, submit_homework, boris, { lesson: l('l-text'), answer: 'x' }, 'not_enrolled');
    await refusal(
      env,
      submit_homework,
      anna,
      { lesson: l('l-text'), answer: 'x', space: 'frozen' },
      'organization_suspended',
    );
    await refusal(
      env,
      submit_homework,
      anna,
      { lesson: l('l-text'), answer: 'x', space: 'nowhere' },
      'space_not_available',
    );
    await refusal(env, my_homework, anna, { space: 'nowhere' }, 'space_not_available');
    await refusal(env, my_homework, boris, { course: stack.course }, 'not_enrolled');
    await refusal(env, my_homework, anna, { course: stack.course, space: 'frozen' }, 'organization_suspended');
    await refusal(env, my_homework, anna, { lesson: 'garbage' }, 'lesson_not_found');
    await refusal(env, upload_homework_file, anna, { lesson: l('l-none') }, 'no_homework');
    await refusal(env, upload_homework_file, anna, { lesson: l('l-text') }, 'answer_mode');
    await refusal(env, upload_homework_file, boris, { lesson: l('l-both') }, 'not_enrolled');
    expect(await call(env, upload_homework_file, anna, { lesson: l('l-both') })).toMatchObject({
      lesson: l('l-both'),
      space: 'acme',
      title: 'Текст или файлы',
    });
  });

  it('course_not_in_space: a course the organization space does not hold', async () => {
    const { enrollment } = stack;
    await enrollment.admin.upsertOrganization('beta', 'Бета');
    await enrollment.admin.addMember('beta', 'anna@hw', 'member');
    await refusal(
      env,
      submit_homework,
      anna,
      { lesson: stack.lesson('l-text'), answer: 'x', space: 'beta' },
      'course_not_in_space',
    );
    await refusal(env, my_homework, anna, { course: stack.course, space: 'beta' }, 'course_not_in_space');
    await refusal(env, my_homework, anna, { lesson: stack.lesson('l-text'), space: 'beta' }, 'course_not_in_space');
    await refusal(
      env,
      upload_homework_file,
      anna,
      { lesson: stack.lesson('l-both'), space: 'beta' },
      'course_not_in_space',
    );
    await refusal(
      env,
      upload_homework_file,
      anna,
      { lesson: stack.lesson('l-both'), space: 'frozen' },
      'organization_suspended',
    );
    await refusal(
      env,
      upload_homework_file,
      anna,
      { lesson: stack.lesson('l-both'), space: 'nowhere' },
      'space_not_available',
    );
    await refusal(env, upload_homework_file, anna, { lesson: `${stack.course}.nope` }, 'lesson_not_found');
    await refusal(env, artifact, anna, { course: stack.course, space: 'beta' }, 'course_not_in_space');
    await refusal(env, artifact, anna, { course: stack.course, artifact: 'nope' }, 'artifact_not_found');
    await refusal(env, fill_document, boris, { course: stack.course }, 'not_enrolled');
    await refusal(env, fill_document, anna, { course: stack.course, space: 'frozen' }, 'organization_suspended');
  });

  it('busy: the same submission is being saved by another request', async () => {
    const lesson = stack.lesson('l-both');
    await call(env, submit_homework, anna, { lesson, answer: 'Первый ответ' });
    const before = await submissionRow(lesson, 'acme');
    await stack.homework.db.transaction().execute(async (trx) => {
      await sql`select 1 from submissions where id = ${before?.id} for update`.execute(trx);
      await refusal(env, submit_homework, anna, { lesson, answer: 'Второй ответ' }, 'busy');
    });
    expect((await submissionRow(lesson, 'acme'))?.version).toBe(1);
    await refusal(env, upload_homework_file, anna, { lesson: stack.lesson('l-text') }, 'answer_mode');
  });

  it('upload_homework_file refuses accepted_locked', async () => {
    const lesson = stack.lesson('l-both');
    const row = await submissionRow(lesson, 'acme');
    await call(env, accept_homework, CURATOR, { submission: String(row?.id) });
    await refusal(env, upload_homework_file, anna, { lesson }, 'accepted_locked');
  });
});

describe('the lessons service asks', () => {
  it('artifact_blocks of a lesson with filled, and empty_blocks at closing, per space', async () => {
    const args = { user: 'anna@hw', course: stack.course, release: stack.release, lesson: 'l-text', space: 'personal' };
    const ctx = await call(env, homeworkLessonContext, anna, { ...args, previous_lesson: null });
    expect(ctx).toEqual({
      artifact_blocks: [
        {
          artifact: 'agreements_log',
          key: 'agreements',
          title: 'Договорённости',
          description: 'Что сюда записывают',
          filled: false,
        },
      ],
      previous_homework: null,
      returned_homework: [],
    });
    // Only inside the student's call: without their principal (or with another's) nothing answers.
    await expect(env.bus.request(homeworkEmptyBlocks, null, args)).rejects.toMatchObject({ status: 401 });
    await expect(
      env.bus.request(homeworkLessonContext, null, { ...args, previous_lesson: null }),
    ).rejects.toMatchObject({
      status: 401,
    });
    await expect(env.bus.request(homeworkEmptyBlocks, person('eve@hw'), args)).rejects.toMatchObject({ status: 403 });
    expect(await call(env, homeworkEmptyBlocks, anna, args)).toEqual({
      empty_blocks: [{ artifact: 'agreements_log', key: 'agreements', title: 'Договорённости' }],
    });
    await call(env, update_artifact, anna, {
      course: stack.course,
      artifact: 'agreements_log',
      key: 'agreements',
      rows: [{ topic: 'Ретро' }],
      space: 'personal',
    });
    expect((await call(env, homeworkEmptyBlocks, anna, args)).empty_blocks).toEqual([]);
    expect((await call(env, homeworkEmptyBlocks, anna, { ...args, space: 'acme' })).empty_blocks).toHaveLength(1);
    const none = await call(env, homeworkLessonContext, anna, {
      ...args,
      lesson: 'l-none',
      previous_lesson: 'l-files',
    });
    // anna never passed l-files in the personal space: nothing was assigned there (issue 19 point 8).
    expect(none).toEqual({ artifact_blocks: [], previous_homework: null, returned_homework: [] });
  });
});
