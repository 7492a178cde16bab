import {
  create_note,
  delete_note,
  edit_note,
  get_my_projects,
  get_note,
  KbNoteChanged,
  link,
  list_notes,
  move_folder,
  type Principal,
  recent_activity,
  rename_folder,
  rename_note,
  type ToolContract,
  whoami,
} from '@studium/contracts';
import { asReceived, createTestEnv, eventually, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnowledge } from '../../../test/support/knowledge.ts';
import { startEnrollment } from '../../../test/support/stack.ts';
import { agent, visibleTo } from '../src/kb.ts';

// move_folder and rename_folder against the real service, PostgreSQL and NATS: all notes of a folder
// move in one transaction, or none does.

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;

const alice: Principal = {
  user: 'alice@test',
  full_name: 'Алия',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};
const bob: Principal = { ...alice, user: 'bob@test', full_name: 'Бауыржан' };

beforeAll(async () => {
  env = await createTestEnv('kb-folders');
  enrollment = await startEnrollment(env);
  const a = enrollment.admin;
  await a.upsertUser('alice@test', 'Алия', ['Student']);
  await a.upsertUser('bob@test', 'Бауыржан', ['Student']);
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('beta', 'Бета');
  await a.addMember('acme', 'alice@test', 'member');
  await a.addMember('acme', 'bob@test', 'member');
  await a.addMember('beta', 'bob@test', 'member');
  knowledge = await startKnowledge(env);
  await knowledge.admin.createProject('acme', 'docs', 'Документация');
});

afterAll(async () => {
  await knowledge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

// Replies are checked field by field; `any` keeps the assertions short.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = Record<string, any>;

async function call(c: ToolContract, args: Json, who: Principal = alice): Promise<Json> {
  const r = (await env.bus.request(c, who, args as never)) as Json;
  if (!r.ok) throw new Error(`${c.subject}: ${r.error.code} ${r.error.message}`);
  return r.data;
}

async function refusal(c: ToolContract, args: Json, who: Principal = alice): Promise<Json> {
  const r = (await env.bus.request(c, who, args as never)) as Json;
  if (r.ok) throw new Error(`${c.subject} answered ok: ${JSON.stringify(r.data)}`);
  return r.error;
}

async function note(project: string, title: string, path: string, extra = '') {
  return (await call(create_note, { project, path, body: `# ${title}\n\n${extra}` })).id as string;
}

/** Everything a folder operation may touch: every note's folder, title, body and version; revisions, activity, outbox. */
async function snapshot() {
  const notes = await knowledge.db
    .selectFrom('notes')
    .select(['id', 'folder', 'title', 'body', 'version', 'deleted_at'])
    .orderBy('id')
    .execute();
  const { rows } = await sql<{ revisions: string; activity: string; outbox: string; links: string; aliases: string }>`
    select (select count(*) from note_revisions) as revisions, (select count(*) from activity) as activity,
      (select count(*) from outbox) as outbox, (select count(*) from links) as links,
      (select count(*) from note_aliases) as aliases`.execute(knowledge.db);
  return { notes, ...rows[0] };
}

async function folderOf(id: string) {
  return (await call(get_note, { ref: id })).path as string;
}

async function revisionsOf(id: string) {
  return knowledge.db
    .selectFrom('note_revisions')
    .select(['version', 'action', 'folder'])
    .where('note', '=', id)
    .orderBy('version')
    .execute();
}

async function outboxAfter(count: string) {
  const { rows } = await sql<{ data: Json }>`
    select payload->'data' as data from outbox order by id offset ${Number(count)}`.execute(knowledge.db);
  return rows.map((r) => r.data);
}

describe('a folder operation that fails midway changes nothing', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    ids.push(await note('acme/docs', 'Сбой один', 'src'));
    ids.push(await note('acme/docs', 'Сбой два', 'src', 'См. [[Сбой три]].'));
    ids.push(await note('acme/docs', 'Сбой три', 'src/sub'));
    ids.push(await note('acme/docs', 'Сбой четыре', 'src/sub/deep', 'См. [[Сбой один]].'));
    // The third note whose folder changes in a transaction fails; a sequence (never rolled back)
    // counts the attempts, so the test knows two notes really were written before the failure.
    await sql`create sequence test_moves`.execute(knowledge.db);
    await sql`create function test_fail_third_move() returns trigger language plpgsql as $$
      declare seen int;
      begin
        if new.folder is distinct from old.folder then
          seen := coalesce(nullif(current_setting('test.moves', true), ''), '0')::int + 1;
          perform set_config('test.moves', seen::text, true);
          perform nextval('test_moves');
          if seen = 3 then raise exception 'injected failure at the third note'; end if;
        end if;
        return new;
      end $$`.execute(knowledge.db);
    await sql`create trigger test_fail_third_move before update on notes
      for each row execute function test_fail_third_move()`.execute(knowledge.db);
  });

  afterAll(async () => {
    await sql`drop trigger if exists test_fail_third_move on notes`.execute(knowledge.db);
    await sql`drop function if exists test_fail_third_move()`.execute(knowledge.db);
    await sql`drop sequence if exists test_moves`.execute(knowledge.db);
  });

  async function attempts() {
    const { rows } = await sql<{
      n: string;
    }>`select case when is_called then last_value else 0 end as n from test_moves`.execute(knowledge.db);
    return Number(rows[0].n);
  }

  it('move_folder: every note stays where it was, no revision, no activity, no event', async () => {
    const before = await snapshot();
    const seen = await attempts();
    await expect(
      env.bus.request(move_folder, alice, { project: 'acme/docs', path: 'src', newParent: 'dst' }),
    ).rejects.toMatchObject({
      status: 500,
    });
    expect((await attempts()) - seen).toBe(3);
    expect(await snapshot()).toEqual(before);
    expect(await Promise.all(ids.map(folderOf))).toEqual(['src', 'src', 'src/sub', 'src/sub/deep']);
    expect((await call(list_notes, { project: 'acme/docs' })).folders).not.toContain('dst');
  });

  it('rename_folder: the same', async () => {
    const before = await snapshot();
    const seen = await attempts();
    await expect(
      env.bus.request(rename_folder, alice, { project: 'acme/docs', path: 'src', name: 'lib' }),
    ).rejects.toMatchObject({
      status: 500,
    });
    expect((await attempts()) - seen).toBe(3);
    expect(await snapshot()).toEqual(before);
    expect(await Promise.all(ids.map(folderOf))).toEqual(['src', 'src', 'src/sub', 'src/sub/deep']);
  });

  it('a refusal for one note (it would pass the depth limit) leaves the others where they were too', async () => {
    await sql`drop trigger test_fail_third_move on notes`.execute(knowledge.db);
    const deep = Array.from({ length: 13 }, (_, i) => `d${i}`).join('/');
    const deepest = await note('acme/docs', 'Сбой глубоко', `src/sub/${deep}`);
    const before = await snapshot();
    // src/sub/d0/…/d12 is 15 segments; under p1/p2 it would be 17, one past the limit of 16.
    const r = await refusal(move_folder, { project: 'acme/docs', path: 'src', newParent: 'p1/p2' });
    expect(r).toMatchObject({ code: 'invalidPath', path: `p1/p2/src/sub/${deep}` });
    expect(await snapshot()).toEqual(before);
    expect(await folderOf(deepest)).toBe(`src/sub/${deep}`);
    // One level up fits: everything moves.
    expect(await call(move_folder, { project: 'acme/docs', path: 'src', newParent: 'p1' })).toMatchObject({ moved: 5 });
    expect(await folderOf(deepest)).toBe(`p1/src/sub/${deep}`);
  });
});

describe('a folder operation that succeeds moves every note, links keep resolving', () => {
  const id: Record<string, string> = {};
  beforeAll(async () => {
    id.a = await note('acme/docs', 'Гайд', 'guide', 'Дальше: [[Установка (старое имя)]].');
    id.b = await note('acme/docs', 'Установка (старое имя)', 'guide');
    await call(rename_note, { id: id.b, title: 'Установка' }); // [[Установка (старое имя)]] resolves through the alias
    id.c = await note('acme/docs', 'Тонкости', 'guide/deep', 'Назад к [[Гайд]], вперёд к [[Ещё не написано]].');
    id.out = await note('acme/docs', 'Снаружи', 'other', 'Ссылки на [[Тонкости]] и [[Установка]].');
    await call(link, { from: id.out, type: 'depends_on', to: id.a });
    // The same folder name in another project does not move.
    id.elsewhere = await note('acme', 'Гайд в корне', 'guide');
  });

  async function links(ref: string) {
    const n = await call(get_note, { ref, project: 'acme/docs', detailed: true });
    return {
      id: n.id,
      out: n.links.outgoing.map((l: Json) => `${l.type}>${l.to ?? l.toTitle}`).sort(),
      in: n.links.incoming.map((l: Json) => `${l.type}<${l.from}`).sort(),
    };
  }

  async function check(folders: Record<'a' | 'b' | 'c', string>, before: Awaited<ReturnType<typeof snapshot>>) {
    // Every note of the folder is where it should be, one version and one revision further.
    for (const k of ['a', 'b', 'c'] as const) {
      expect(await folderOf(id[k])).toBe(folders[k]);
      const was = before.notes.find((n) => n.id === id[k]);
      const revs = await revisionsOf(id[k]);
      expect(revs.at(-1)).toEqual({ version: (was?.version ?? 0) + 1, action: 'moved', folder: folders[k] });
      expect(revs).toHaveLength((was?.version ?? 0) + 1);
    }
    // Nothing else changed.
    const after = await snapshot();
    for (const n of after.notes.filter((x) => ![id.a, id.b, id.c].includes(x.id))) {
      expect(n).toEqual(before.notes.find((x) => x.id === n.id));
    }
    expect(Number(after.revisions) - Number(before.revisions)).toBe(3);
    expect(Number(after.activity) - Number(before.activity)).toBe(3);
    expect(after.links).toBe(before.links);
    expect(after.aliases).toBe(before.aliases);
    // One event per note in the outbox, and the relay publishes them.
    const events = await outboxAfter(before.outbox);
    expect(events.map((e) => [e.note, e.action, e.project]).sort()).toEqual(
      [id.a, id.b, id.c].map((n) => [n, 'moved', 'acme/docs']).sort(),
    );
    await knowledge.app.flush();
    const { rows } = await sql<{ n: string }>`select count(*) as n from outbox where published_at is null`.execute(
      knowledge.db,
    );
    expect(Number(rows[0].n)).toBe(0);
    // Links and [[wiki links]] still resolve, both ways, through live titles and aliases.
    expect(await links('[[Гайд]]')).toEqual({
      id: id.a,
      out: [`mentions>${id.b}`],
      in: [`depends_on<${id.out}`, `mentions<${id.c}`].sort(),
    });
    expect((await links('[[Установка (старое имя)]]')).id).toBe(id.b);
    expect(await links('[[Тонкости]]')).toEqual({
      id: id.c,
      out: [`mentions>${id.a}`, 'mentions>Ещё не написано'].sort(),
      in: [`mentions<${id.out}`],
    });
    expect((await links('[[Снаружи]]')).out).toEqual(
      [`depends_on>${id.a}`, `mentions>${id.b}`, `mentions>${id.c}`].sort(),
    );
    // The folder of the same name in another project stays.
    expect(await folderOf(id.elsewhere)).toBe('guide');
  }

  it('move_folder moves the folder with everything below it under the new parent', async () => {
    const before = await snapshot();
    expect(await call(move_folder, { project: 'acme/docs', path: 'guide', newParent: 'handbook' })).toEqual({
      project: 'acme/docs',
      from: 'guide',
      to: 'handbook/guide',
      moved: 3,
    });
    await check({ a: 'handbook/guide', b: 'handbook/guide', c: 'handbook/guide/deep' }, before);
    const root = await call(list_notes, { project: 'acme/docs' });
    expect(root.folders).toContain('handbook');
    expect(root.folders).not.toContain('guide');
    expect((await call(list_notes, { project: 'acme/docs', path: 'handbook/guide' })).folders).toEqual([
      'handbook/guide/deep',
    ]);
  });

  it('rename_folder renames it in place, the notes below included', async () => {
    const before = await snapshot();
    expect(await call(rename_folder, { project: 'acme/docs', path: 'handbook/guide', name: 'manual' })).toEqual({
      project: 'acme/docs',
      from: 'handbook/guide',
      to: 'handbook/manual',
      moved: 3,
    });
    await check({ a: 'handbook/manual', b: 'handbook/manual', c: 'handbook/manual/deep' }, before);
    expect((await call(list_notes, { project: 'acme/docs', path: 'handbook' })).folders).toEqual(['handbook/manual']);
    // The forward reference made in a moved note resolves when its target is written.
    const later = await note('acme/docs', 'Ещё не написано', '');
    expect((await links('[[Тонкости]]')).out).toEqual([`mentions>${id.a}`, `mentions>${later}`].sort());
  });

  it('moving a folder back up to the root and to where it already is', async () => {
    expect(await call(move_folder, { project: 'acme/docs', path: 'handbook/manual', newParent: '' })).toMatchObject({
      to: 'manual',
      moved: 3,
    });
    const before = await snapshot();
    // Already there: nothing to move, nothing written.
    expect(await call(move_folder, { project: 'acme/docs', path: 'manual', newParent: '' })).toMatchObject({
      moved: 0,
    });
    expect(await call(rename_folder, { project: 'acme/docs', path: 'manual', name: 'manual' })).toMatchObject({
      moved: 0,
    });
    expect(await snapshot()).toEqual(before);
  });

  it('rename_folder of a folder named like a project leaves the project handle as it is', async () => {
    await note('acme', 'Про документацию', 'docs');
    expect(await call(rename_folder, { project: 'acme', path: 'docs', name: 'документы' })).toMatchObject({
      to: 'документы',
      moved: 1,
    });
    expect((await call(get_my_projects, {})).projects.map((p: Json) => p.handle)).toEqual(['acme', 'acme/docs']);
  });
});

describe('every refusal of move_folder and rename_folder, and none changes anything', () => {
  beforeAll(async () => {
    await note('acme/docs', 'Отказы', 'refuse/here');
    const trashed = await note('acme/docs', 'В корзине', 'trashed');
    await call(delete_note, { id: trashed });
    await call(create_note, { project: 'beta', path: 'refuse', body: '# Чужое' }, bob);
  });

  const cases: Array<[string, ToolContract, Json, Json]> = [
    [
      'move_folder: unknown project',
      move_folder,
      { project: 'nope', path: 'refuse', newParent: '' },
      { code: 'projectNotFound', project: 'nope' },
    ],
    [
      'move_folder: a project of a space the caller is not in',
      move_folder,
      { project: 'beta', path: 'refuse', newParent: '' },
      { code: 'projectNotFound' },
    ],
    [
      'move_folder: no such folder',
      move_folder,
      { project: 'acme/docs', path: 'nothing', newParent: '' },
      { code: 'folderNotFound', path: 'nothing' },
    ],
    [
      'move_folder: a folder whose notes are all in the trash',
      move_folder,
      { project: 'acme/docs', path: 'trashed', newParent: 'x' },
      { code: 'folderNotFound' },
    ],
    [
      'move_folder: a prefix that is not a folder',
      move_folder,
      { project: 'acme/docs', path: 'ref', newParent: 'x' },
      { code: 'folderNotFound' },
    ],
    ['move_folder: the root', move_folder, { project: 'acme/docs', path: '', newParent: 'x' }, { code: 'invalidPath' }],
    [
      'move_folder: a .. path',
      move_folder,
      { project: 'acme/docs', path: 'refuse/..', newParent: 'x' },
      { code: 'invalidPath' },
    ],
    [
      'move_folder: a bad parent',
      move_folder,
      { project: 'acme/docs', path: 'refuse', newParent: 'a/./b' },
      { code: 'invalidPath' },
    ],
    [
      'move_folder: into itself',
      move_folder,
      { project: 'acme/docs', path: 'refuse', newParent: 'refuse' },
      { code: 'folderIntoItself', path: 'refuse', newParent: 'refuse' },
    ],
    [
      'move_folder: below itself',
      move_folder,
      { project: 'acme/docs', path: 'refuse', newParent: 'refuse/here' },
      { code: 'folderIntoItself', path: 'refuse', newParent: 'refuse/here' },
    ],
    [
      'rename_folder: unknown project',
      rename_folder,
      { project: 'nope', path: 'refuse', name: 'x' },
      { code: 'projectNotFound' },
    ],
    [
      'rename_folder: a project of a space the caller is not in',
      rename_folder,
      { project: 'beta', path: 'refuse', name: 'x' },
      { code: 'projectNotFound' },
    ],
    [
      'rename_folder: no such folder',
      rename_folder,
      { project: 'acme/docs', path: 'nothing', name: 'x' },
      { code: 'folderNotFound' },
    ],
    [
      'rename_folder: a folder whose notes are all in the trash',
      rename_folder,
      { project: 'acme/docs', path: 'trashed', name: 'x' },
      { code: 'folderNotFound' },
    ],
    ['rename_folder: the root', rename_folder, { project: 'acme/docs', path: '', name: 'x' }, { code: 'invalidPath' }],
    [
      'rename_folder: a name with a slash',
      rename_folder,
      { project: 'acme/docs', path: 'refuse', name: 'a/b' },
      { code: 'invalidPath' },
    ],
    [
      'rename_folder: an empty name',
      rename_folder,
      { project: 'acme/docs', path: 'refuse', name: '  ' },
      { code: 'invalidPath' },
    ],
    ['rename_folder: ..', rename_folder, { project: 'acme/docs', path: 'refuse', name: '..' }, { code: 'invalidPath' }],
    [
      'rename_folder: a name over 120 characters',
      rename_folder,
      { project: 'acme/docs', path: 'refuse', name: 'я'.repeat(121) },
      { code: 'invalidPath' },
    ],
  ];

  for (const [name, tool, args, expected] of cases) {
    it(name, async () => {
      const before = await snapshot();
      expect(await refusal(tool, args)).toMatchObject(expected);
      expect(await snapshot()).toEqual(before);
    });
  }
});

describe('concurrent edits of a note in a moving folder: waited for or refused, never lost', () => {
  const ids: string[] = [];
  let titles: string[] = [];
  beforeAll(async () => {
    for (const t of ['Гонка А', 'Гонка Б', 'Гонка В', 'Гонка Г']) ids.push(await note('acme/docs', t, 'race'));
    ids.sort();
    const rows = await knowledge.db.selectFrom('notes').select(['id', 'title']).where('id', 'in', ids).execute();
    titles = ids.map((i) => rows.find((r) => r.id === i)?.title ?? '');
  });

  it('an edit_note with a token read before the move gets versionConflict and writes nothing; re-read, it lands', async () => {
    const seen = await call(get_note, { ref: ids[0] });
    await call(move_folder, { project: 'acme/docs', path: 'race', newParent: 'r1' });
    const stale = await refusal(
      edit_note,
      { id: ids[0], versionToken: seen.versionToken, mode: 'append', content: 'Поздно.' },
      bob,
    );
    const now = await call(get_note, { ref: ids[0] });
    expect(stale).toMatchObject({ code: 'versionConflict', currentVersionToken: now.versionToken });
    expect(now.content).not.toContain('Поздно.');
    await call(edit_note, { id: ids[0], versionToken: now.versionToken, mode: 'append', content: 'Вовремя.' }, bob);
    const last = await call(get_note, { ref: ids[0] });
    expect(last).toMatchObject({ path: 'r1/race' });
    expect(last.content).toContain('Вовремя.');
  });

  it('a move waits for an edit in progress and moves the note as the edit left it (no deadlock on links between them)', async () => {
    const kb = knowledge.app.kb;
    const projects = await kb.access.projects(asReceived(bob, whoami.subject));
    const project = projects.find((p) => p.handle === 'acme/docs') ?? null;
    let move: Promise<Json> | undefined;
    // Bob's edit of the second note (in id order) holds its row; the move locks the first note,
    // then waits for the second. The edit then links to the first note (a foreign-key check on
    // it): with `for update` row locks the two would deadlock; with `for no key update` they queue.
    await kb.writer.transaction(async (r, trx) => {
      expect(await r.notes.lock(ids[1])).toBeDefined();
      move = env.bus.request(move_folder, alice, {
        project: 'acme/docs',
        path: 'r1/race',
        newParent: 'r2',
      }) as Promise<Json>;
      await eventually(async () => {
        const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(knowledge.db);
        if (Number(rows[0].n) < 1) throw new Error('the move is not waiting yet');
      }, 5000);
      const edited = await kb.writer.change(
        ids[1],
        null,
        project,
        (n) => ({
          ok: true,
          title: n.title,
          folder: n.folder,
          body: `${n.body}\nПравка во время переноса: [[${titles[0]}]].`,
        }),
        'edited',
        agent(bob),
        visibleTo(bob, projects),
        trx,
      );
      expect(edited.ok).toBe(true);
    });
    expect(await move).toMatchObject({ ok: true, data: { moved: 4 } });
    const n = await call(get_note, { ref: ids[1], detailed: true });
    expect(n.path).toBe('r2/race');
    expect(n.content).toContain('Правка во время переноса');
    expect(n.links.outgoing.map((l: Json) => l.to)).toEqual([ids[0]]);
    expect((await revisionsOf(ids[1])).map((r) => r.action).slice(-2)).toEqual(['edited', 'moved']);
  });

  it('an edit racing a move: either lands before it and moves with the note, or is refused with versionConflict', async () => {
    const racing = [];
    for (const t of ['Забег 1', 'Забег 2', 'Забег 3']) racing.push(await note('acme/docs', t, 'race2'));
    const seen = await call(get_note, { ref: racing[1] });
    const [edit, moved] = await Promise.all([
      env.bus.request(edit_note, bob, {
        id: racing[1],
        versionToken: seen.versionToken,
        mode: 'append',
        content: 'Гонка.',
      }),
      call(rename_folder, { project: 'acme/docs', path: 'race2', name: 'done' }),
    ]);
    expect(moved).toMatchObject({ moved: 3 });
    const after = await call(get_note, { ref: racing[1] });
    expect(after.path).toBe('done');
    if (edit.ok) expect(after.content).toContain('Гонка.');
    else {
      expect(edit.error.code).toBe('versionConflict');
      expect(after.content).not.toContain('Гонка.');
    }
    const revs = await revisionsOf(racing[1]);
    expect(revs.map((r) => r.version)).toEqual(revs.map((_, i) => i + 1));
    expect(revs.map((r) => r.action)).toEqual(edit.ok ? ['created', 'edited', 'moved'] : ['created', 'moved']);
  });

  it('two folder operations on one folder at once: one moves every note, the other finds no folder', async () => {
    const both = [];
    for (const t of ['Дуэль 1', 'Дуэль 2', 'Дуэль 3']) both.push(await note('acme/docs', t, 'duel/inner'));
    const results = await Promise.all([
      env.bus.request(move_folder, alice, { project: 'acme/docs', path: 'duel/inner', newParent: 'left' }),
      env.bus.request(rename_folder, bob, { project: 'acme/docs', path: 'duel/inner', name: 'right' }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.find((r) => !r.ok)).toMatchObject({ ok: false, error: { code: 'folderNotFound' } });
    const folders = new Set(await Promise.all(both.map(folderOf)));
    expect([...folders]).toHaveLength(1);
    expect(['left/inner', 'duel/right']).toContain([...folders][0]);
    for (const id of both) expect((await revisionsOf(id)).map((r) => r.action)).toEqual(['created', 'moved']);
  });
});

describe('the events, revisions and activity of a folder move are those of any other change, one per note', () => {
  it('each event is a KbNoteChanged like an edit writes, with its own envelope id, in id order', async () => {
    const ids: string[] = [];
    for (const t of ['Событие 1', 'Событие 2', 'Событие 3', 'Событие 4'])
      ids.push(await note('acme/docs', t, 'events'));
    await call(edit_note, {
      id: ids[0],
      versionToken: (await call(get_note, { ref: ids[0] })).versionToken,
      mode: 'append',
      content: 'Правка.',
    });
    const { rows: edits } = await sql<{ payload: Json }>`
      select payload from outbox where payload->'data'->>'note' = ${ids[0]} order by id desc limit 1`.execute(
      knowledge.db,
    );
    const edited = edits[0].payload;
    const before = await snapshot();
    const { rows: lastActivity } = await sql<{
      id: number;
    }>`select coalesce(max(id), 0)::int as id from activity`.execute(knowledge.db);
    expect(await call(move_folder, { project: 'acme/docs', path: 'events', newParent: 'archive' }, bob)).toMatchObject({
      moved: 4,
    });
    const { rows } = await sql<{ payload: Json }>`select payload from outbox order by id offset ${Number(
      before.outbox,
    )}`.execute(knowledge.db);
    const sorted = [...ids].sort();
    expect(rows.map((r) => r.payload.data.note)).toEqual(sorted);
    const versions = Object.fromEntries(
      (await knowledge.db.selectFrom('notes').select(['id', 'version']).where('id', 'in', ids).execute()).map((n) => [
        n.id,
        n.version,
      ]),
    );
    for (const { payload } of rows) {
      expect(Object.keys(payload).sort()).toEqual(Object.keys(edited).sort());
      expect(payload).toMatchObject({ type: edited.type, occurred_at: expect.stringMatching(/Z$/) });
      const data = KbNoteChanged.parse(payload.data);
      expect(Object.keys(payload.data).sort()).toEqual(Object.keys(edited.data).sort());
      expect(data).toEqual({
        note: data.note,
        class: 'user-doc',
        project: 'acme/docs',
        space: 'acme',
        action: 'moved',
        version: versions[data.note],
        by: 'bob@test',
        by_kind: 'agent',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    expect(new Set(rows.map((r) => r.payload.id)).size).toBe(4);
    expect(rows.map((r) => r.payload.id)).not.toContain(edited.id);
    // One revision per note with the note as it is now, by the mover; one activity row each, in id order.
    for (const id of ids) {
      const revs = await knowledge.db
        .selectFrom('note_revisions')
        .selectAll()
        .where('note', '=', id)
        .orderBy('version', 'desc')
        .executeTakeFirstOrThrow();
      const now = await knowledge.db
        .selectFrom('notes')
        .select(['title', 'folder', 'body', 'tags', 'version', 'updated_by', 'updated_kind'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(revs).toMatchObject({
        version: now.version,
        action: 'moved',
        title: now.title,
        folder: 'archive/events',
        body: now.body,
        tags: now.tags,
        by_user: 'bob@test',
        by_kind: 'agent',
      });
      expect(now).toMatchObject({ updated_by: 'bob@test', updated_kind: 'agent' });
    }
    const activity = await knowledge.db
      .selectFrom('activity')
      .select(['note', 'action', 'by_user', 'by_kind', 'owner'])
      .where('id', '>', lastActivity[0].id)
      .orderBy('id')
      .execute();
    expect(activity).toEqual(
      sorted.map((n) => ({ note: n, action: 'moved', by_user: 'bob@test', by_kind: 'agent', owner: null })),
    );
    // recent_activity shows them as any change, newest first (the last in id order).
    const recent = await call(recent_activity, { project: 'acme/docs', limit: 4 });
    expect(recent.items.map((c: Json) => [c.note, c.action, c.path])).toEqual(
      [...sorted].reverse().map((n) => [n, 'moved', 'archive/events']),
    );
  });
});

describe('a move whose caller stopped waiting commits nothing (statement_timeout, checkDeadline before commit)', () => {
  /** Waits until no transaction holds a row lock on these notes (the move has committed or rolled back). */
  async function settled(ids: string[]) {
    await knowledge.db.transaction().execute(async (trx) => {
      await sql`select id from notes where id = any(${ids}::uuid[]) order by id for no key update`.execute(trx);
    });
  }

  async function waiting(event: string) {
    await eventually(async () => {
      const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and (wait_event_type = ${event} or wait_event = ${event})`.execute(
        knowledge.db,
      );
      if (Number(rows[0].n) < 1) throw new Error(`nobody waits on ${event} yet`);
    }, 5000);
  }

  it('the deadline passes while the move waits for a note someone is editing: rolled back, the folder stays', async () => {
    const ids: string[] = [];
    for (const t of ['Срок 1', 'Срок 2', 'Срок 3']) ids.push(await note('acme/docs', t, 'deadline1'));
    ids.sort();
    const before = await snapshot();
    let move: Promise<unknown> | undefined;
    await knowledge.db.transaction().execute(async (trx) => {
      // The last note in id order is held: the move locks the others, then waits for it.
      await sql`select id from notes where id = ${ids[2]} for no key update`.execute(trx);
      move = env.bus.request(
        move_folder,
        alice,
        { project: 'acme/docs', path: 'deadline1', newParent: 'late' },
        {
          timeoutMs: 400,
        },
      );
      await waiting('Lock');
      await expect(move).rejects.toMatchObject({ status: 504 });
      // The move stops waiting at the deadline (statement_timeout), not when the edit ends: the
      // notes it had locked are free while the third is still held here.
      await eventually(async () => {
        await knowledge.db.transaction().execute(async (other) => {
          await sql`select id from notes where id = any(${ids.slice(0, 2)}::uuid[])
            for no key update nowait`.execute(other);
        });
      }, 3000);
    });
    await settled(ids);
    expect(await snapshot()).toEqual(before);
    expect(await Promise.all(ids.map(folderOf))).toEqual(['deadline1', 'deadline1', 'deadline1']);
    // Nothing stays locked: the same move with time to spare goes through.
    expect(await call(move_folder, { project: 'acme/docs', path: 'deadline1', newParent: 'late' })).toMatchObject({
      moved: 3,
    });
  });

  it('the deadline passes while the move writes: rolled back before commit, no event, no revision', async () => {
    const ids: string[] = [];
    for (const t of ['Срок 4', 'Срок 5']) ids.push(await note('acme/docs', t, 'deadline2'));
    // Writing the revisions and the activity rows takes 350 ms each: no single statement reaches the
    // deadline (600 ms, also the statement timeout), but together they pass it before the commit.
    await sql`create function test_slow_insert() returns trigger language plpgsql as $$
      begin perform pg_sleep(0.35); return null; end $$`.execute(knowledge.db);
    for (const table of ['note_revisions', 'activity']) {
      await sql`create trigger test_slow_insert after insert on ${sql.table(table)}
        for each statement execute function test_slow_insert()`.execute(knowledge.db);
    }
    try {
      const before = await snapshot();
      const move = env.bus.request(
        rename_folder,
        alice,
        { project: 'acme/docs', path: 'deadline2', name: 'late2' },
        { timeoutMs: 600 },
      );
      await waiting('PgSleep');
      await expect(move).rejects.toMatchObject({ status: 504 });
      await settled(ids);
      expect(await snapshot()).toEqual(before);
      expect(await Promise.all(ids.map(folderOf))).toEqual(['deadline2', 'deadline2']);
    } finally {
      await sql`drop function if exists test_slow_insert() cascade`.execute(knowledge.db);
    }
    expect(await call(rename_folder, { project: 'acme/docs', path: 'deadline2', name: 'late2' })).toMatchObject({
      moved: 2,
    });
  });
});

describe('a large folder moves within the request timeout', () => {
  it('5,000 notes (the per-note move took 10 s and more): one revision, activity row and event each, every version one further, nothing else touched', async () => {
    const { rows: projects } = await sql<{ id: string }>`
      select id from projects where space = 'acme' and slug = 'docs'`.execute(knowledge.db);
    // Seeded straight into the schema (5,000 create_note calls would take minutes here).
    await sql`insert into notes (id, project, class, folder, title, body, lang, tsv, search_text,
        created_by, created_kind, updated_by, updated_kind)
      select gen_random_uuid(), ${projects[0].id}, 'user-doc', case when i % 4 = 0 then 'bulk/inner' else 'bulk' end,
        'Массовая ' || i, '# Массовая ' || i || E'\n\nТекст заметки номер ' || i, 'ru',
        to_tsvector('russian', 'Массовая ' || i), 'Массовая ' || i, 'alice@test', 'agent', 'alice@test', 'agent'
      from generate_series(1, 5000) as i`.execute(knowledge.db);
    await sql`insert into note_revisions (note, version, action, title, folder, body, tags, by_user, by_kind)
      select id, 1, 'created', title, folder, body, tags, created_by, created_kind from notes
      where folder in ('bulk', 'bulk/inner')`.execute(knowledge.db);
    const before = await snapshot();
    const reply = (await env.bus.request(
      move_folder,
      alice,
      { project: 'acme/docs', path: 'bulk', newParent: 'big' },
      { timeoutMs: 5000 },
    )) as Json;
    expect(reply).toEqual({ ok: true, data: { project: 'acme/docs', from: 'bulk', to: 'big/bulk', moved: 5000 } });
    const after = await snapshot();
    const moved = after.notes.filter((n) => n.folder === 'big/bulk' || n.folder === 'big/bulk/inner');
    expect(moved).toHaveLength(5000);
    expect(moved.filter((n) => n.folder === 'big/bulk/inner')).toHaveLength(1250);
    for (const n of moved) {
      const was = before.notes.find((x) => x.id === n.id);
      expect(n).toEqual({ ...was, folder: `big/${was?.folder}`, version: 2 });
    }
    for (const n of after.notes.filter((x) => !moved.includes(x))) {
      expect(n).toEqual(before.notes.find((x) => x.id === n.id));
    }
    expect(Number(after.revisions) - Number(before.revisions)).toBe(5000);
    expect(Number(after.activity) - Number(before.activity)).toBe(5000);
    expect(after.links).toBe(before.links);
    const events = await outboxAfter(before.outbox);
    expect(new Set(events.map((e) => `${e.note}:${e.version}:${e.action}`))).toEqual(
      new Set(moved.map((n) => `${n.id}:2:moved`)),
    );
    const { rows: revs } = await sql<{ n: string }>`select count(*) as n from note_revisions
      where version = 2 and action = 'moved' and folder like 'big/bulk%' and by_user = 'alice@test'`.execute(
      knowledge.db,
    );
    expect(Number(revs[0].n)).toBe(5000);
    await knowledge.app.flush();
    const { rows } = await sql<{ n: string }>`select count(*) as n from outbox where published_at is null`.execute(
      knowledge.db,
    );
    expect(Number(rows[0].n)).toBe(0);
  });
});
