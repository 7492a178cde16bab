import { forget, lessonHistory, my_notes, type Principal, remember } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnowledge } from '../../../test/support/knowledge.ts';
import { StudentNoteRepository } from '../src/repositories/student-note.repository.ts';

let env: TestEnv;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;

const who = (user: string): Principal => ({
  user,
  full_name: user,
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
});
const anna = who('anna@test');

beforeAll(async () => {
  env = await createTestEnv('student-notes');
  knowledge = await startKnowledge(env, { NOTE_LIMIT: '2' });
});

afterAll(async () => {
  await knowledge?.close();
  await env?.cleanup();
});

/** Project and observation notes need a lessons session; the lessons service writes them through remember, tests seed them. */
async function seedCourseNote(
  user: string,
  course: string,
  kind: 'project' | 'observation',
  key: string,
  text: string,
) {
  await new StudentNoteRepository(knowledge.db).upsert(user, {
    key,
    kind,
    course,
    text,
    course_title: `Курс ${course}`,
  });
}

describe('remember', () => {
  it('writes a fact, and a second write by the same key replaces the text', async () => {
    const first = await env.bus.request(remember, anna, { kind: 'fact', key: 'role', text: 'руководитель группы' });
    expect(first).toEqual({ ok: true, data: { key: 'role', kind: 'fact' } });
    const again = await env.bus.request(remember, anna, { kind: 'fact', key: 'role', text: 'руководитель отдела' });
    expect(again.ok).toBe(true);
    const notes = await env.bus.request(my_notes, anna, {});
    if (!notes.ok) throw new Error('refused');
    expect(notes.data.facts.map((f) => [f.key, f.text])).toEqual([['role', 'руководитель отдела']]);
    expect(notes.data.facts[0].updated_at >= notes.data.facts[0].created_at).toBe(true);
  });

  it('refuses an unknown kind with the allowed kinds, and changes nothing', async () => {
    const r = await env.bus.request(remember, anna, { kind: 'habit', key: 'pace', text: 'быстро' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'unknown_note_kind', allowed: ['fact', 'project', 'observation'] },
    });
    const notes = await env.bus.request(my_notes, anna, {});
    expect(notes.ok && notes.data.facts.map((f) => f.key)).toEqual(['role']);
  });

  it('refuses an empty key and an empty text', async () => {
    const r = await env.bus.request(remember, anna, { kind: 'fact', key: '  ', text: 'x' });
    expect(r).toMatchObject({ ok: false, error: { code: 'note_key_required' } });
    const t = await env.bus.request(remember, anna, { kind: 'fact', key: 'goal', text: ' ' });
    expect(t).toMatchObject({ ok: false, error: { code: 'note_text_required' } });
    const notes = await env.bus.request(my_notes, anna, {});
    expect(notes.ok && notes.data.facts.map((f) => f.key)).toEqual(['role']);
  });

  it('refuses a project or an observation without a session', async () => {
    for (const kind of ['project', 'observation']) {
      const r = await env.bus.request(remember, anna, { kind, key: 'project', text: 'CRM' });
      expect(r).toMatchObject({ ok: false, error: { code: 'not_your_session' } });
    }
  });

  it('counts keys against the limit, but not the profile keys, and lets an existing key be replaced at the limit', async () => {
    const bob = who('bob@test');
    for (const key of ['pets', 'hobby']) {
      expect((await env.bus.request(remember, bob, { kind: 'fact', key, text: key })).ok).toBe(true);
    }
    const over = await env.bus.request(remember, bob, { kind: 'fact', key: 'city', text: 'Алматы' });
    expect(over).toMatchObject({ ok: false, error: { code: 'note_limit_reached', limit: 2 } });
    expect((await env.bus.request(remember, bob, { kind: 'fact', key: 'hobby', text: 'шахматы' })).ok).toBe(true);
    for (const key of ['role', 'industry', 'company', 'goal', 'time_budget']) {
      expect((await env.bus.request(remember, bob, { kind: 'fact', key, text: key })).ok).toBe(true);
    }
    const notes = await env.bus.request(my_notes, bob, {});
    expect(notes.ok && notes.data.facts.map((f) => f.key)).toEqual([
      'role',
      'industry',
      'company',
      'goal',
      'time_budget',
      'pets',
      'hobby',
    ]);
    expect(notes.ok && notes.data.facts.find((f) => f.key === 'hobby')?.text).toBe('шахматы');
  });
});

describe('my_notes and forget', () => {
  beforeAll(async () => {
    await seedCourseNote('carl@test', 'c-sales', 'project', 'project', 'магазин обуви');
    await seedCourseNote('carl@test', 'c-sales', 'observation', 'pace', 'быстро схватывает');
    await seedCourseNote('carl@test', 'c-lead', 'observation', 'pace', 'медленно');
    await env.bus.request(remember, who('carl@test'), { kind: 'fact', key: 'industry', text: 'розница' });
  });

  it('shows facts alone without course, and the course notes with it', async () => {
    const carl = who('carl@test');
    const plain = await env.bus.request(my_notes, carl, {});
    expect(plain.ok && plain.data).toEqual({ facts: [expect.objectContaining({ key: 'industry', text: 'розница' })] });
    const sales = await env.bus.request(my_notes, carl, { course: 'c-sales' });
    if (!sales.ok) throw new Error('refused');
    expect(sales.data.project?.map((n) => n.text)).toEqual(['магазин обуви']);
    expect(sales.data.observations?.map((n) => n.text)).toEqual(['быстро схватывает']);
    expect(sales.data.projects_elsewhere).toEqual([]);
  });

  it('offers the projects of other courses while this course has none', async () => {
    const lead = await env.bus.request(my_notes, who('carl@test'), { course: 'c-lead' });
    if (!lead.ok) throw new Error('refused');
    expect(lead.data.project).toEqual([]);
    expect(lead.data.observations?.map((n) => n.text)).toEqual(['медленно']);
    expect(lead.data.projects_elsewhere).toEqual([
      expect.objectContaining({
        key: 'project',
        text: 'магазин обуви',
        course: 'c-sales',
        course_title: 'Курс c-sales',
      }),
    ]);
  });

  it('forgets a course note with its course and a fact without, and refuses what is not there', async () => {
    const carl = who('carl@test');
    expect(await env.bus.request(forget, carl, { key: 'pace' })).toMatchObject({
      ok: false,
      error: { code: 'note_not_found', key: 'pace', course: null },
    });
    expect(await env.bus.request(forget, carl, { key: 'pace', course: 'c-lead' })).toEqual({
      ok: true,
      data: { key: 'pace', kind: 'observation', course: 'c-lead' },
    });
    expect(await env.bus.request(forget, carl, { key: 'industry' })).toMatchObject({
      ok: true,
      data: { kind: 'fact' },
    });
    expect(await env.bus.request(forget, carl, { key: 'industry' })).toMatchObject({
      ok: false,
      error: { code: 'note_not_found' },
    });
    const sales = await env.bus.request(my_notes, carl, { course: 'c-sales' });
    expect(sales.ok && sales.data.observations?.map((n) => n.key)).toEqual(['pace']);
  });
});

describe('knowledge.lesson_history', () => {
  it('returns facts and the course notes, frame keys first in frame order, then free keys; never another course', async () => {
    const dana = who('dana@test');
    await env.bus.request(remember, dana, { kind: 'fact', key: 'company', text: 'Акме' });
    await env.bus.request(remember, dana, { kind: 'fact', key: 'role', text: 'продавец' });
    await seedCourseNote('dana@test', 'c1', 'observation', 'free_note', 'любит примеры');
    await seedCourseNote('dana@test', 'c1', 'project', 'scenario', 'звонок клиенту');
    await seedCourseNote('dana@test', 'c2', 'project', 'scenario', 'другой курс');
    const args = { user: 'dana@test', course: 'c1', keys: ['role', 'scenario'] };
    // Only inside the student's own call: no principal is a 401, another user's a 403.
    await expect(env.bus.request(lessonHistory, null, args)).rejects.toMatchObject({ status: 401 });
    await expect(env.bus.request(lessonHistory, who('eve@test'), args)).rejects.toMatchObject({ status: 403 });
    const r = await env.bus.request(lessonHistory, dana, args);
    if (!r.ok) throw new Error('refused');
    expect(r.data.notes.map((n) => [n.key, n.kind, n.course, n.frame])).toEqual([
      ['role', 'fact', null, true],
      ['company', 'fact', null, false],
      ['scenario', 'project', 'c1', true],
      ['free_note', 'observation', 'c1', false],
    ]);
  });
});
