import { setTimeout as sleep } from 'node:timers/promises';
import {
  enroll,
  list_catalog,
  list_my_courses,
  notify_when_released,
  PERSONAL,
  type Principal,
  type Reply,
} from '@studium/contracts';
import { PRINCIPAL_HEADER, ReplyCache, Tagged } from '@studium/platform';
import { createTestEnv, EDGE_TRUST, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { headers } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionalList } from '../src/domain/list-etag.ts';
import { resolveSpace } from '../src/domain/space.ts';
import { ListStampsRepository } from '../src/repositories/list-stamps.repository.ts';
import { card, publishCards, seedCards } from './support/cards.ts';
import { startEnrollmentService, student } from './support/service.ts';

let env: TestEnv;
let svc: Awaited<ReturnType<typeof startEnrollmentService>>;

const STUDENTS = [
  'still@t',
  'ann@t',
  'emp@t',
  'prog@t',
  'ini@t',
  'joiner@t',
  'kim@t',
  'bob@t',
  'late@t',
  'steps@t',
  'both@t',
  'x@t',
  'y@t',
];

beforeAll(async () => {
  env = await createTestEnv('list-etag');
  svc = await startEnrollmentService(env);
  const a = svc.admin;
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('initech', 'Инитех');
  for (const user of STUDENTS) await a.upsertUser(user, user, ['Student']);
  for (const user of ['emp@t', 'ini@t', 'late@t', 'both@t']) await a.addMember('acme', user, 'member');
  await a.addMember('initech', 'ini@t', 'member');
  await seedCards(env, svc.db, [
    card('alpha'),
    card('beta'),
    card('gamma'),
    card('delta'),
    card('epsilon'),
    card('soon', { status: 'upcoming' }),
    card('ini-only'),
  ]);
  await a.allowCourse('acme', 'alpha');
  await a.allowCourse('acme', 'soon');
  await a.allowCourse('initech', 'ini-only');
});

afterAll(async () => {
  await svc?.close();
  await env?.cleanup();
});

/** list_catalog through the bus, with the caller's reply cache when given. */
const catalogVia = (cache: ReplyCache | undefined, user: string, args: { space?: string } = {}, selected?: string) =>
  env.bus.request(list_catalog, student(user, selected), args, { cache });

/** list_my_courses through the bus, with the caller's reply cache when given. */
const coursesVia = (cache: ReplyCache | undefined, user: string, args: { space?: string } = {}, selected?: string) =>
  env.bus.request(list_my_courses, student(user, selected), args, { cache });

/** The data of a successful reply. */
function dataOf<T>(reply: Reply<T>): T {
  if (!reply.ok) throw new Error(`refused: ${reply.error.code}`);
  return reply.data;
}

const ids = (reply: Reply<{ courses: Array<{ course: string }> }>) =>
  dataOf(reply)
    .courses.map((c) => c.course)
    .sort();

/**
 * Calls twice and checks that the second answer is the very object of the first: the service
 * confirmed the kept reply ("not modified") instead of rendering a new one. Returns the reply.
 */
async function settled<R>(call: () => Promise<R>): Promise<R> {
  const first = await call();
  expect(first).toMatchObject({ ok: true });
  expect(first).not.toHaveProperty('etag');
  expect(await call()).toBe(first);
  return first;
}

/** The change stamps as the triggers of migration 0004 keep them. */
async function stamps(): Promise<Record<string, string>> {
  const rows = await svc.db.selectFrom('list_stamps').select(['key', 'stamp']).execute();
  return Object.fromEntries(rows.map((r) => [r.key, String(r.stamp)]));
}

/** The database clock in epoch milliseconds (deadlines turn overdue by it). */
async function dbNow(): Promise<number> {
  const { rows } = await svc.database.pool.query<{ ms: number }>(
    'select (extract(epoch from now()) * 1000)::float8 as ms',
  );
  return rows[0].ms;
}

interface Wire {
  ok: boolean;
  etag?: string;
  not_modified?: boolean;
  data?: unknown;
  error?: unknown;
}

/** A handcrafted request on the wire, with any If-None-Match the test chooses; returns the raw answer. */
async function wire(contract: { subject: string }, principal: Principal, args: object, ifNoneMatch?: string) {
  const body = JSON.stringify({ args, if_none_match: ifNoneMatch });
  const h = headers();
  h.set(PRINCIPAL_HEADER, EDGE_TRUST.signer?.sign(principal, contract.subject, Date.now() + 3000) ?? '');
  const msg = await env.bus.nc.request(env.bus.subject(contract.subject), body, { timeout: 3000, headers: h });
  return msg.json<Wire>();
}

describe('list_catalog with a reply cache', () => {
  it('confirms an unchanged list: the kept reply object comes back; without a cache the list is rendered', async () => {
    const cache = new ReplyCache(1 << 20);
    const first = await catalogVia(cache, 'still@t');
    expect(ids(first)).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma', 'ini-only', 'soon']);
    expect(first).not.toHaveProperty('etag');
    expect(await catalogVia(cache, 'still@t')).toBe(first);

    const plain = await catalogVia(undefined, 'still@t');
    expect(plain).toEqual(first);
    expect(plain).not.toBe(first);
    // A call without the cache neither used nor disturbed the kept reply.
    expect(await catalogVia(cache, 'still@t')).toBe(first);
    expect(cache.size).toBe(1);

    // On the wire: the current ETag is answered "not modified" in place of the list.
    const rendered = await wire(list_catalog, student('still@t'), {});
    expect(rendered).toMatchObject({ ok: true, etag: expect.any(String), data: dataOf(first) });
    expect(await wire(list_catalog, student('still@t'), {}, rendered.etag)).toEqual({
      ok: true,
      not_modified: true,
      etag: rendered.etag,
    });
  });

  it('drops the kept reply when the student enrolls (enroll through the bus): the course leaves the catalog', async () => {
    const cache = new ReplyCache(1 << 20);
    const before = await settled(() => catalogVia(cache, 'ann@t'));
    expect(ids(before)).toContain('beta');
    expect(await env.bus.request(enroll, student('ann@t'), { course: 'beta' })).toMatchObject({ ok: true });
    const after = await catalogVia(cache, 'ann@t');
    expect(after).not.toBe(before);
    expect(ids(after)).toEqual(ids(before).filter((c) => c !== 'beta'));
    expect(await catalogVia(cache, 'ann@t')).toBe(after);
  });

  it('drops the kept reply when the student subscribes to an announcement: notify flips', async () => {
    const cache = new ReplyCache(1 << 20);
    const soonIn = (reply: Awaited<ReturnType<typeof catalogVia>>) =>
      dataOf(reply).courses.find((c) => c.course === 'soon');
    const before = await settled(() => catalogVia(cache, 'ann@t'));
    expect(soonIn(before)?.notify).toBe(false);
    expect(await env.bus.request(notify_when_released, student('ann@t'), { course: 'soon' })).toMatchObject({
      ok: true,
      data: { notify: true },
    });
    const after = await catalogVia(cache, 'ann@t');
    expect(after).not.toBe(before);
    expect(soonIn(after)?.notify).toBe(true);
  });

  it('drops the kept reply when a course card arrives or changes', async () => {
    const cache = new ReplyCache(1 << 20);
    const before = await settled(() => catalogVia(cache, 'ann@t'));
    expect(ids(before)).not.toContain('fresh');
    await seedCards(env, svc.db, [card('fresh'), card('gamma', { title: 'Гамма, второе издание' })]);
    const after = await catalogVia(cache, 'ann@t');
    expect(after).not.toBe(before);
    expect(ids(after)).toEqual([...ids(before), 'fresh'].sort());
    expect(dataOf(after).courses.find((c) => c.course === 'gamma')?.title).toBe('Гамма, второе издание');
  });

  it("drops an employee's kept replies, personal and organization's, when the organization opens a course", async () => {
    const cache = new ReplyCache(1 << 20);
    const personal = await settled(() => catalogVia(cache, 'emp@t'));
    const inAcme = await settled(() => catalogVia(cache, 'emp@t', { space: 'acme' }));
    expect(ids(personal)).toEqual(['alpha', 'soon']);
    expect(ids(inAcme)).toEqual(['alpha', 'soon']);
    await svc.admin.allowCourse('acme', 'delta');
    const personalAfter = await catalogVia(cache, 'emp@t');
    const inAcmeAfter = await catalogVia(cache, 'emp@t', { space: 'acme' });
    expect(personalAfter).not.toBe(personal);
    expect(inAcmeAfter).not.toBe(inAcme);
    expect(ids(personalAfter)).toEqual(['alpha', 'delta', 'soon']);
    expect(ids(inAcmeAfter)).toEqual(['alpha', 'delta', 'soon']);
  });

  it('drops the kept reply when a program is saved and when the student joins it: programs, then locked_by', async () => {
    const cache = new ReplyCache(1 << 20);
    const epsilonIn = (reply: Awaited<ReturnType<typeof catalogVia>>) =>
      dataOf(reply).courses.find((c) => c.course === 'epsilon');
    const before = await settled(() => catalogVia(cache, 'prog@t'));
    expect(epsilonIn(before)?.programs).toEqual([]);

    await svc.admin.saveProgram('path', 'Путь', true, ['delta', 'epsilon']);
    const saved = await catalogVia(cache, 'prog@t');
    expect(saved).not.toBe(before);
    expect(epsilonIn(saved)?.programs).toMatchObject([{ program: 'path', position: 2, member: false }]);
    expect(epsilonIn(saved)).not.toHaveProperty('locked_by');
    expect(await catalogVia(cache, 'prog@t')).toBe(saved);

    await svc.admin.addProgramMember('path', 'prog@t');
    const joined = await catalogVia(cache, 'prog@t');
    expect(joined).not.toBe(saved);
    expect(epsilonIn(joined)?.programs).toMatchObject([{ program: 'path', member: true }]);
    expect(epsilonIn(joined)?.locked_by).toEqual({ course: 'delta', title: 'Курс delta' });
  });

  it('drops the kept replies of an employee when an organization of theirs is suspended, and again when reinstated', async () => {
    const cache = new ReplyCache(1 << 20);
    const personal = await settled(() => catalogVia(cache, 'ini@t'));
    const inInitech = await settled(() => catalogVia(cache, 'ini@t', { space: 'initech' }));
    expect(ids(personal)).toContain('ini-only');
    expect(ids(inInitech)).toEqual(['ini-only']);

    await svc.admin.setSuspended('initech', true);
    const suspended = await catalogVia(cache, 'ini@t');
    expect(suspended).not.toBe(personal);
    expect(ids(suspended)).toEqual(ids(personal).filter((c) => c !== 'ini-only'));
    // The kept reply of the suspended space is not confirmed: the space is refused now.
    expect(await catalogVia(cache, 'ini@t', { space: 'initech' })).toMatchObject({
      ok: false,
      error: { code: 'organization_suspended', space: 'initech' },
    });

    await svc.admin.setSuspended('initech', false);
    const reinstated = await catalogVia(cache, 'ini@t');
    expect(reinstated).not.toBe(suspended);
    expect(reinstated).toEqual(personal);
    const inInitechAgain = await catalogVia(cache, 'ini@t', { space: 'initech' });
    // Nothing the organization's list shows changed while it was suspended (the refusal was not
    // kept): its kept reply is confirmed as it is.
    expect(inInitechAgain).toBe(inInitech);
  });

  it('drops the kept reply when the student joins an organization, a change no stamp covers (the scope is in the ETag)', async () => {
    const cache = new ReplyCache(1 << 20);
    const before = await settled(() => catalogVia(cache, 'joiner@t'));
    expect(ids(before)).toContain('beta');
    const stampsBefore = await stamps();
    await svc.admin.addMember('acme', 'joiner@t', 'member');
    expect(await stamps()).toEqual(stampsBefore);
    const after = await catalogVia(cache, 'joiner@t');
    expect(after).not.toBe(before);
    expect(ids(after)).toEqual(['alpha', 'delta', 'soon']);
  });
});

describe('per-user and shared stamps', () => {
  it("keeps a student's reply current through another student's enroll, and drops it on a card", async () => {
    const cache = new ReplyCache(1 << 20);
    const before = await settled(() => catalogVia(cache, 'kim@t'));
    const stampsBefore = await stamps();
    expect(await env.bus.request(enroll, student('bob@t'), { course: 'alpha' })).toMatchObject({ ok: true });
    // Bob's write bumped his own stamp, and only his.
    const stampsAfter = await stamps();
    expect(stampsAfter['bob@t']).not.toBe(stampsBefore['bob@t']);
    expect({ ...stampsAfter, 'bob@t': null }).toEqual({ ...stampsBefore, 'bob@t': null });
    expect(ids(await catalogVia(undefined, 'bob@t'))).not.toContain('alpha');
    expect(await catalogVia(cache, 'kim@t')).toBe(before);

    await seedCards(env, svc.db, [card('another')]);
    const after = await catalogVia(cache, 'kim@t');
    expect(after).not.toBe(before);
    expect(ids(after)).toContain('another');
  });
  it('keeps replies current through writes that change no row: a replayed older card, access granted twice', async () => {
    const cache = new ReplyCache(1 << 20);
    const before = await settled(() => catalogVia(cache, 'kim@t'));
    const stampsBefore = await stamps();
    await svc.admin.allowCourse('acme', 'alpha');
    await svc.admin.allowCourse('acme', 'alpha');
    expect(await stamps()).toEqual(stampsBefore);
    expect(await catalogVia(cache, 'kim@t')).toBe(before);
    // An old revision of a stored card arrives again (a JetStream redelivery): once the consumer
    // has recorded it as processed, nothing was stored and no stamp moved.
    const [replay] = await publishCards(env, [card('alpha', { revision: 1 })]);
    await eventually(async () => {
      const row = await sql<{ n: number }>`select count(*)::int as n from processed_events
        where msg_id = ${replay.id}`.execute(svc.db);
      expect(row.rows[0].n).toBe(1);
    });
    expect(await stamps()).toEqual(stampsBefore);
    expect(await catalogVia(cache, 'kim@t')).toBe(before);
    await seedCards(env, svc.db, [card('marker-after-replay')]);
    expect(await catalogVia(cache, 'kim@t')).not.toBe(before);
  });
});

describe('list_my_courses with a reply cache', () => {
  it('turns the kept reply stale when a deadline passes, with no write: the course comes back overdue', async () => {
    const cache = new ReplyCache(1 << 20);
    const deadline = Math.ceil(await dbNow()) + 2000;
    await svc.admin.assignCourse('acme', 'late@t', 'alpha', {
      mandatory: true,
      deadline: new Date(deadline).toISOString(),
    });
    const later = new Date(deadline + 24 * 3600_000).toISOString();
    await svc.admin.assignCourse('acme', 'late@t', 'epsilon', { mandatory: true, deadline: later });

    const course = (reply: Awaited<ReturnType<typeof coursesVia>>, id: string) =>
      dataOf(reply).courses.find((c) => c.course === id);
    const before = await settled(() => coursesVia(cache, 'late@t'));
    expect(course(before, 'alpha')).toMatchObject({ deadline: new Date(deadline).toISOString(), overdue: false });
    expect(course(before, 'epsilon')).toMatchObject({ deadline: later, overdue: false });
    const stampsBefore = await stamps();

    await sleep(Math.max(0, deadline - (await dbNow())) + 150);
    while ((await dbNow()) <= deadline) await sleep(50);

    const after = await coursesVia(cache, 'late@t');
    expect(after).not.toBe(before);
    expect(course(after, 'alpha')).toMatchObject({ overdue: true });
    expect(course(after, 'epsilon')).toMatchObject({ overdue: false });
    expect(await stamps()).toEqual(stampsBefore);
    // The next deadline is a day away: the new reply is kept again.
    expect(await coursesVia(cache, 'late@t')).toBe(after);
  });

  it('drops the kept reply when progress is recorded', async () => {
    const cache = new ReplyCache(1 << 20);
    expect(await env.bus.request(enroll, student('steps@t'), { course: 'gamma' })).toMatchObject({ ok: true });
    const before = await settled(() => coursesVia(cache, 'steps@t'));
    expect(dataOf(before).courses).toMatchObject([
      { course: 'gamma', lessons_completed: 0, next_lesson: { id: 'gamma-l1' } },
    ]);

    await svc.admin.recordProgress('steps@t', 'gamma', 1, null);
    const step = await settled(() => coursesVia(cache, 'steps@t'));
    expect(step).not.toBe(before);
    expect(dataOf(step).courses).toMatchObject([
      { course: 'gamma', lessons_completed: 1, next_lesson: { id: 'gamma-l2' }, completed: false },
    ]);

    await svc.admin.recordProgress('steps@t', 'gamma', 3, new Date().toISOString());
    const done = await coursesVia(cache, 'steps@t');
    expect(done).not.toBe(step);
    expect(dataOf(done).courses).toMatchObject([
      { course: 'gamma', lessons_completed: 3, next_lesson: null, completed: true },
    ]);
  });
});

describe('spaces', () => {
  it("keeps one user's personal and organization replies apart, each current and each right", async () => {
    const cache = new ReplyCache(1 << 20);
    const personal = await settled(() => coursesVia(cache, 'both@t'));
    const inAcme = await settled(() => coursesVia(cache, 'both@t', { space: 'acme' }));
    // Interleaved, each is still confirmed: they are kept under their own keys.
    expect(await coursesVia(cache, 'both@t')).toBe(personal);
    expect(await coursesVia(cache, 'both@t', { space: 'acme' })).toBe(inAcme);
    expect(dataOf(personal)).toEqual({ space: 'personal', courses: [] });
    expect(dataOf(inAcme)).toEqual({ space: 'acme', courses: [] });
    const catalogPersonal = await settled(() => catalogVia(cache, 'both@t'));
    const catalogAcme = await settled(() => catalogVia(cache, 'both@t', { space: 'acme' }));

    // A personal enrollment: the personal lists show it; the organization's space does not count it.
    expect(await env.bus.request(enroll, student('both@t'), { course: 'alpha' })).toMatchObject({
      ok: true,
      data: { space: 'personal' },
    });
    const personalAfter = await coursesVia(cache, 'both@t');
    const inAcmeAfter = await coursesVia(cache, 'both@t', { space: 'acme' });
    expect(dataOf(personalAfter).courses.map((c) => c.course)).toEqual(['alpha']);
    expect(inAcmeAfter).not.toBe(inAcme);
    expect(inAcmeAfter).toEqual(inAcme);
    const catalogPersonalAfter = await catalogVia(cache, 'both@t');
    const catalogAcmeAfter = await catalogVia(cache, 'both@t', { space: 'acme' });
    expect(ids(catalogPersonalAfter)).toEqual(ids(catalogPersonal).filter((c) => c !== 'alpha'));
    expect(ids(catalogAcmeAfter)).toEqual(ids(catalogAcme));
    expect(ids(catalogAcmeAfter)).toContain('alpha');
  });

  it('answers right for the selected space of the principal, however the selections alternate on one cache', async () => {
    const cache = new ReplyCache(1 << 20);
    const expected = {
      personal: dataOf(await coursesVia(undefined, 'both@t', {}, 'personal')),
      acme: dataOf(await coursesVia(undefined, 'both@t', {}, 'acme')),
    };
    expect(expected.personal).not.toEqual(expected.acme);
    for (const selected of ['personal', 'acme', 'acme', 'personal', 'acme'] as const) {
      expect(dataOf(await coursesVia(cache, 'both@t', {}, selected))).toEqual(expected[selected]);
    }
  });
});

describe('conditional requests on the wire', () => {
  it("never confirms another user's ETag, another list's, another space's, a stale one or a malformed one", async () => {
    const x = student('x@t');
    const y = student('y@t');
    const wx = await wire(list_catalog, x, {});
    const wy = await wire(list_catalog, y, {});
    // Same lists, neither has rows of their own: only who asks tells the ETags apart.
    expect(wx.data).toEqual(wy.data);
    expect(wx.etag).toEqual(expect.any(String));
    expect(wx.etag).not.toBe(wy.etag);
    const etag = wx.etag as string;
    // The control: x's own current ETag is confirmed.
    expect(await wire(list_catalog, x, {}, etag)).toEqual({ ok: true, not_modified: true, etag });

    const rendered = (answer: Wire) => {
      expect(answer).not.toHaveProperty('not_modified');
      expect(answer).toMatchObject({ ok: true, data: expect.anything() });
    };
    const asY = await wire(list_catalog, y, {}, etag);
    rendered(asY);
    expect(asY).toEqual({ ok: true, data: wy.data, etag: wy.etag });

    const myCourses = await wire(list_my_courses, x, {}, etag);
    rendered(myCourses);
    expect(myCourses.data).toEqual({ space: 'personal', courses: [] });

    const emp = student('emp@t');
    const empPersonal = await wire(list_catalog, emp, {});
    rendered(await wire(list_catalog, emp, { space: 'acme' }, empPersonal.etag));
    // The selected space of the principal counts like the argument.
    rendered(await wire(list_catalog, student('emp@t', 'acme'), {}, empPersonal.etag));

    const base = etag.slice(0, etag.lastIndexOf('|'));
    for (const forged of ['', 'garbage', '*', base, `${base}|`, `${base}|NaN`, `${base}|Infinity`, `W/"${etag}"`]) {
      rendered(await wire(list_catalog, x, {}, forged));
    }

    // Stale: x's own write moves the ETag on, and the old one is no longer confirmed.
    await env.bus.request(notify_when_released, x, { course: 'soon' });
    const stale = await wire(list_catalog, x, {}, etag);
    rendered(stale);
    expect(stale.etag).not.toBe(etag);
    expect((stale.data as { courses: Array<{ course: string; notify?: boolean }> }).courses).toContainEqual(
      expect.objectContaining({ course: 'soon', notify: true }),
    );
  });
});

describe('stamps and tags', () => {
  it('leaves a reply untagged when a write lands between its render and the second stamp read', async () => {
    await svc.admin.upsertUser('race@t', 'race@t', ['Student']);
    const resolved = resolveSpace([], PERSONAL);
    if (!resolved.ok) throw new Error('personal space refused');
    const call = (render: () => Promise<{ data: { n: number }; until: number | null }>) =>
      conditionalList({
        stamps: new ListStampsRepository(svc.database.pool),
        list: 'race',
        user: 'race@t',
        scope: resolved.scope,
        ifNoneMatch: null,
        render,
      });
    const quiet = await call(async () => ({ data: { n: 1 }, until: null }));
    expect(quiet).toBeInstanceOf(Tagged);
    const raced = await call(async () => {
      // The rows were read; now a write of this student's commits before the stamps are read again.
      await svc.db
        .insertInto('enrollments')
        .values({
          user_id: 'race@t',
          course: 'gamma',
          space: PERSONAL,
          self_enrolled: true,
          mandatory: null,
          deadline: null,
        })
        .execute();
      return { data: { n: 2 }, until: null };
    });
    expect(raced).not.toBeInstanceOf(Tagged);
    expect(raced).toEqual({ ok: true, data: { n: 2 } });
  });

  it('bumps the stamps for a writer whose search_path does not name the schema (psql, a restore)', async () => {
    const before = await stamps();
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      await client.query(`insert into enrollment.org_courses (course, org) values ('epsilon', 'initech')`);
    } finally {
      await client.end();
    }
    expect((await stamps())['*']).not.toBe(before['*']);
  });
});
