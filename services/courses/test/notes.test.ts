import { add_note, course_notes, create_course, reply_note, resolve_note } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCourses } from '../../../test/support/courses.ts';
import { sampleRelease } from './fixtures.ts';
import { call, publish, refusal } from './helpers.ts';

let env: TestEnv;
let courses: Awaited<ReturnType<typeof startCourses>>;
let course: string;
let release: string;

beforeAll(async () => {
  env = await createTestEnv('courses-notes');
  courses = await startCourses(env);
  const out = await publish(env, sampleRelease('notes'));
  course = out.course;
  release = out.release;
});

afterAll(async () => {
  await courses?.close();
  await env?.cleanup();
});

describe('add_note', () => {
  it.each([
    ['course', null, 'Курс «Переговоры для руководителей»'],
    ['chapter.prepare', null, 'Глава «Подготовить разговор»'],
    ['lesson.l-2', 'l-2', 'Урок «Рамка разговора»'],
    ['objective.o-1', 'l-1', 'Цель «Сформулировать цель разговора» урока «Цель разговора»'],
    ['goal.l-1/term:T1', 'l-1', 'Пункт «Цель и позиция» урока «Цель разговора»'],
    ['question.q-2', 'l-1', 'Вопрос квиза «Позиция — это цель?» урока «Цель разговора»'],
    ['section.goals', null, 'Раздел «Цели разговора» документа «План разговора»'],
    ['agent.frame', null, 'Рамка курса «Переговоры для руководителей» в пакете агента'],
    ['agent.lesson.l-3', 'l-3', 'Пакет агента урока «Следующий шаг»'],
    [
      'agent.item.l-2/execution:E1',
      'l-2',
      'Подробности пункта «Вернуть к теме» урока «Рамка разговора» в пакете агента',
    ],
    ['map.o-3', 'l-3', 'Узел карты курса o-3'],
  ])('puts a question on %s', async (target, lessonKey, label) => {
    const note = await call(env, add_note, { course, target, text: 'Какой пример взять?' });
    expect(note).toEqual({
      note: expect.stringMatching(/^note_/),
      course,
      target,
      release,
      version: 1,
      lesson_key: lessonKey,
      label,
      missing: false,
      status: 'open',
      waiting_on: 'author',
    });
  });

  it.each(['lesson', 'lesson.', 'goal.l-1', 'goal.l-1/a/b', 'agent', 'agent.item.l-1', 'topic.x', 'lesson.a b'])(
    'refuses the address %j: invalid_target',
    async (target) => {
      expect(await refusal(env, add_note, { course, target, text: 'Вопрос' })).toMatchObject({
        code: 'invalid_target',
        where: 'target',
      });
    },
  );

  it.each(['lesson.l-9', 'goal.l-1/term:T9', 'question.q-9', 'section.none', 'map.nowhere'])(
    'refuses a key the active release does not have (%s): note_target_unknown',
    async (target) => {
      expect(await refusal(env, add_note, { course, target, text: 'Вопрос' })).toEqual(
        expect.objectContaining({ code: 'note_target_unknown', target, release }),
      );
    },
  );

  it('refuses an empty text: invalid_note', async () => {
    expect((await refusal(env, add_note, { course, target: 'course', text: '  ' })).code).toBe('invalid_note');
  });

  it('refuses a course without release: course_not_released; an unknown one: course_not_found', async () => {
    const draft = await call(env, create_course, { title: 'Черновик', summary: 'Без релиза' });
    expect((await refusal(env, add_note, { course: draft.course, target: 'course', text: 'x' })).code).toBe(
      'course_not_released',
    );
    expect((await call(env, course_notes, { course: draft.course })).notes).toEqual([]);
    expect((await refusal(env, add_note, { course: 'crs_nope', target: 'course', text: 'x' })).code).toBe(
      'course_not_found',
    );
    expect((await refusal(env, course_notes, { course: 'crs_nope' })).code).toBe('course_not_found');
  });
});

describe('a note from question to acceptance', () => {
  let note: string;

  it('course_notes lists open notes oldest first, filters by lesson and status', async () => {
    note = (
      await call(env, add_note, {
        course,
        target: 'goal.l-2/execution:E1',
        text: 'Какую сцену разыграть?',
        quote: 'Практика.',
      })
    ).note;
    const open = (await call(env, course_notes, { course })).notes;
    expect(open.at(-1)).toMatchObject({ note, quote: 'Практика.', author: 'curator@test', replies: [] });
    expect(open.map((n) => n.created_at)).toEqual([...open.map((n) => n.created_at)].sort());
    const l2 = (await call(env, course_notes, { course, lesson: 'l-2' })).notes;
    expect(l2.every((n) => n.lesson_key === 'l-2')).toBe(true);
    expect(l2.map((n) => n.note)).toContain(note);
    expect((await call(env, course_notes, { course, status: 'done' })).notes).toEqual([]);
  });

  it('course_notes refuses an unknown status: invalid_note', async () => {
    expect(await refusal(env, course_notes, { course, status: 'closed' })).toMatchObject({
      code: 'invalid_note',
      status: 'closed',
    });
  });

  it('reply_note adds to the thread and gives the move to the curator', async () => {
    await courses.admin.reviewNote(note, 'return', 'Возьмите сцену с опозданием на встречу', 'lead@test');
    expect(await call(env, reply_note, { note, text: 'Берём опоздание, спасибо' })).toEqual({
      note,
      status: 'open',
      waiting_on: 'author',
      reply_count: 2,
    });
    expect((await refusal(env, reply_note, { note, text: '' })).code).toBe('invalid_note');
    expect((await refusal(env, reply_note, { note: 'note_nope', text: 'x' })).code).toBe('note_not_found');
  });

  it('resolve_note marks it done with the comment in the thread', async () => {
    expect((await refusal(env, resolve_note, { note, comment: ' ' })).code).toBe('invalid_transition');
    expect(await call(env, resolve_note, { note, comment: 'Сцена в l-2, версия 2' })).toEqual({
      note,
      status: 'done',
      waiting_on: 'author',
      reply_count: 3,
    });
    expect(await refusal(env, resolve_note, { note, comment: 'Ещё раз' })).toMatchObject({
      code: 'invalid_transition',
      status: 'done',
    });
    expect((await refusal(env, resolve_note, { note: 'note_nope', comment: 'x' })).code).toBe('note_not_found');
    const done = (await call(env, course_notes, { course, status: 'done' })).notes;
    expect(done.map((n) => n.note)).toEqual([note]);
    expect(done[0].replies.map((r) => r.text)).toEqual([
      'Возьмите сцену с опозданием на встречу',
      'Берём опоздание, спасибо',
      'Сцена в l-2, версия 2',
    ]);
  });

  it('a note the curator returns opens again for the agent; an accepted one waits on nobody', async () => {
    expect(await courses.admin.reviewNote(note, 'return', 'Не та сцена')).toMatchObject({
      status: 'open',
      waiting_on: 'agent',
    });
    await call(env, resolve_note, { note, comment: 'Заменил сцену, версия 3' });
    expect(await courses.admin.reviewNote(note, 'accept', '')).toMatchObject({ status: 'accepted', waiting_on: null });
    expect(await refusal(env, resolve_note, { note, comment: 'x' })).toMatchObject({
      code: 'invalid_transition',
      status: 'accepted',
    });
    const all = (await call(env, course_notes, { course, status: null })).notes;
    expect(all.find((n) => n.note === note)).toMatchObject({ status: 'accepted', waiting_on: null });
  });

  it('a note whose place a new release removed is missing, and the lesson filter still finds it', async () => {
    const cabinet = await courses.admin.addNote(course, 'lesson.l-3', 'Урок слишком длинный', 'lead@test');
    expect(cabinet).toMatchObject({ lesson_key: 'l-3', waiting_on: 'agent' });
    const next = sampleRelease('notes');
    next.chapters[1].lessons = [{ ...next.chapters[1].lessons[0], key: 'l-5', title: 'Итог' }];
    expect(await publish(env, next)).toMatchObject({ version: 2 });
    const l3 = (await call(env, course_notes, { course, lesson: 'l-3' })).notes;
    expect(l3.map((n) => n.note)).toContain(cabinet.note);
    const gone = l3.find((n) => n.note === cabinet.note);
    expect(gone).toMatchObject({ missing: true, label: 'Урок l-3', release, version: 1, lesson_key: 'l-3' });
    const stays = (await call(env, course_notes, { course, lesson: 'l-1' })).notes;
    expect(stays.every((n) => !n.missing)).toBe(true);
  });
});
