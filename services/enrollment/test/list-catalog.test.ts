import { list_catalog, notify_when_released } from '@studium/contracts';
import { createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, publishCards, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;

beforeAll(async () => {
  env = await createTestEnv('list-catalog');
  svc = await startEnrollmentService(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('globex', 'Глобекс');
  await a.upsertOrganization('frozen', 'Заморозка');
  await a.upsertUser('free@t', 'Свободный Ученик', ['Student']);
  await a.upsertUser('emp@t', 'Сотрудник Акме', ['Student']);
  await a.upsertUser('iced@t', 'Сотрудник Заморозки', ['Student']);
  await a.addMember('acme', 'emp@t', 'member');
  await a.addMember('frozen', 'emp@t', 'member');
  await a.addMember('frozen', 'iced@t', 'member');
  await a.setSuspended('frozen', true);
  await seedCards(env, svc.db, [
    card('alpha'),
    card('beta'),
    card('soon', { status: 'upcoming' }),
    card('draft', { status: 'draft' }),
    card('frozen-only'),
    card('globex-only'),
  ]);
  await a.allowCourse('acme', 'alpha');
  await a.allowCourse('acme', 'soon');
  await a.allowCourse('frozen', 'frozen-only');
  await a.allowCourse('globex', 'globex-only');
});

afterAll(async () => {
  await svc?.close();
  await env?.cleanup();
});

async function catalog(user: string, args: { space?: string } = {}, selected = 'personal') {
  const reply = await env.bus.request(list_catalog, student(user, selected), args);
  if (!reply.ok) throw new Error(`refused: ${reply.error.code}`);
  return reply.data;
}

const ids = (data: { courses: Array<{ course: string }> }) => data.courses.map((c) => c.course).sort();

describe('the catalog read model', () => {
  it('keeps the card with the highest revision, whatever the order events arrive in', async () => {
    await publishCards(env, [card('gamma', { revision: 5, title: 'Новое название' })]);
    await publishCards(env, [
      card('gamma', { revision: 3, title: 'Старое название' }),
      // The same revision again (a republished card) changes nothing either.
      card('gamma', { revision: 5, title: 'Повтор' }),
      card('marker'),
    ]);
    await eventually(async () => {
      const row = await svc.db.selectFrom('catalog').select('course').where('course', '=', 'marker').executeTakeFirst();
      expect(row).toBeDefined();
    });
    const gamma = await svc.db
      .selectFrom('catalog')
      .select(['title', 'revision', 'lessons_total'])
      .where('course', '=', 'gamma')
      .executeTakeFirstOrThrow();
    expect(gamma).toEqual({ title: 'Новое название', revision: 5, lessons_total: 3 });
  });
});

describe('list_catalog', () => {
  it('shows a person without organizations the whole published catalog and the announcements', async () => {
    const data = await catalog('free@t');
    expect(data.space).toBe('personal');
    expect(ids(data)).toEqual(['alpha', 'beta', 'frozen-only', 'gamma', 'globex-only', 'marker', 'soon']);
    const alpha = data.courses.find((c) => c.course === 'alpha');
    expect(alpha).toEqual({
      course: 'alpha',
      title: 'Курс alpha',
      summary: 'Кратко о курсе alpha',
      upcoming: false,
      programs: [],
    });
    const soon = data.courses.find((c) => c.course === 'soon');
    expect(soon).toMatchObject({ upcoming: true, objectives: ['Первая цель', 'Вторая цель'], notify: false });
  });

  it('shows an employee the courses opened to their active organizations, in personal and in the org space', async () => {
    expect(ids(await catalog('emp@t'))).toEqual(['alpha', 'soon']);
    expect(ids(await catalog('emp@t', { space: 'acme' }))).toEqual(['alpha', 'soon']);
    // The selected space (carried by the principal) applies without the argument.
    expect((await catalog('emp@t', {}, 'acme')).space).toBe('acme');
  });

  it('is empty for an employee whose only organization is suspended', async () => {
    expect((await catalog('iced@t')).courses).toEqual([]);
  });

  it('refuses a space the student does not have, and a suspended organization', async () => {
    const missing = await env.bus.request(list_catalog, student('emp@t'), { space: 'globex' });
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'space_not_available', space: 'globex', available: ['personal', 'acme'] },
    });
    const frozen = await env.bus.request(list_catalog, student('emp@t'), { space: 'frozen' });
    expect(frozen).toMatchObject({ ok: false, error: { code: 'organization_suspended', space: 'frozen' } });
  });

  it('falls back to personal when the selected space stopped being available', async () => {
    expect((await catalog('emp@t', {}, 'frozen')).space).toBe('personal');
  });

  it('shows notify: true for an announcement the student subscribed to', async () => {
    const sub = await env.bus.request(notify_when_released, student('free@t'), { course: 'soon' });
    expect(sub).toEqual({ ok: true, data: { course: 'soon', title: 'Курс soon', notify: true } });
    const soon = (await catalog('free@t')).courses.find((c) => c.course === 'soon');
    expect(soon?.notify).toBe(true);
  });

  it('leaves out courses the student already has in the space', async () => {
    await svc.admin.assignCourse('acme', 'emp@t', 'alpha', { mandatory: true });
    expect(ids(await catalog('emp@t', { space: 'acme' }))).toEqual(['soon']);
    // Personal lists every course of the student, so the catalog there leaves it out too.
    expect(ids(await catalog('emp@t'))).toEqual(['soon']);
  });

  it('shows programs and locks a course whose previous course in an ordered program is not completed', async () => {
    await svc.admin.saveProgram('path', 'Путь', true, ['beta', 'gamma', 'marker']);
    await svc.admin.addProgramMember('path', 'free@t');
    const data = await catalog('free@t');
    const gamma = data.courses.find((c) => c.course === 'gamma');
    expect(gamma?.programs).toEqual([
      {
        program: 'path',
        title: 'Путь',
        position: 2,
        total: 3,
        ordered: true,
        previous: { course: 'beta', title: 'Курс beta' },
        next: { course: 'marker', title: 'Курс marker' },
        member: true,
      },
    ]);
    expect(gamma?.locked_by).toEqual({ course: 'beta', title: 'Курс beta' });
    expect(data.courses.find((c) => c.course === 'beta')).not.toHaveProperty('locked_by');
    // A non-member sees the program but no lock.
    await svc.admin.upsertUser('other@t', 'Другой', ['Student']);
    const other = (await catalog('other@t')).courses.find((c) => c.course === 'gamma');
    expect(other?.programs[0]).toMatchObject({ member: false });
    expect(other).not.toHaveProperty('locked_by');
  });
});
