// `npm run bench:kb-folders`: rename_folder of folders of 100, 500, 2,000 and 10,000 notes over the
// bus, the knowledge service in this process against the real PostgreSQL and NATS (the request's
// own timeout raised to 120 s so that a slow move is measured rather than cut). Each folder holds
// three quarters of its notes directly and a quarter in a subfolder; every note has a revision, an
// activity row and a [[link]] to the previous note, seeded straight into the schema. Each round
// renames every folder there and back (two moves); the table gives min / median / max per move.
// BENCH_SIZES (comma-separated) and BENCH_ROUNDS change the run.
import { type Principal, rename_folder } from '@studium/contracts';
import { createTestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { ensureServices } from '../scripts/ensure-services.ts';
import { startKnowledge } from '../test/support/knowledge.ts';
import { startEnrollment } from '../test/support/stack.ts';

const SIZES = (process.env.BENCH_SIZES ?? '100,500,2000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USER = 'bench@studium';
const who: Principal = { user: USER, full_name: 'Бенч', roles: ['Student'], scope: 'write', space: 'personal' };

const WORDS = (
  'сервер очередь задача релиз клиент договор оплата счёт биллинг инцидент дежурство мониторинг метрика алерт база ' +
  'данных индекс запрос репликация бэкап восстановление миграция схема таблица сервис шлюз платёж возврат скидка заказ'
).split(' ');

await ensureServices();
const env = await createTestEnv('bench-kb-folders');
const enrollment = await startEnrollment(env);
await enrollment.admin.upsertUser(USER, 'Бенч', ['Student']);
await enrollment.admin.upsertOrganization('acme', 'Акме');
await enrollment.admin.addMember('acme', USER, 'member');
const knowledge = await startKnowledge(env);
try {
  const projectId = (await knowledge.admin.createProject('acme', 'big', 'Большой проект')).id;
  const seeded = performance.now();
  for (const size of SIZES) await seed(projectId, size);
  await sql`analyze`.execute(knowledge.db);
  console.log(
    `seeded ${SIZES.reduce((a, b) => a + b, 0)} notes in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
  );

  const rows: string[] = [];
  for (const size of SIZES) {
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [path, name] of [
        [`f${size}`, `g${size}`],
        [`g${size}`, `f${size}`],
      ]) {
        const t = performance.now();
        const reply = await env.bus.request(
          rename_folder,
          who,
          { project: 'acme/big', path, name },
          { timeoutMs: 120_000 },
        );
        times.push(performance.now() - t);
        if (!reply.ok || reply.data.moved !== size) throw new Error(`${size}: ${JSON.stringify(reply)}`);
      }
    }
    times.sort((a, b) => a - b);
    const f = (ms: number) => Math.round(ms).toLocaleString('en-US');
    rows.push(
      `| ${size.toLocaleString('en-US')} | ${f(times[0])} | ${f(times[Math.floor(times.length / 2)])} | ${f(times.at(-1) ?? 0)} |`,
    );
    console.log(rows.at(-1));
  }
  console.log(
    `\n${ROUNDS * 2} moves per size\n\n| notes in the folder | min ms | median ms | max ms |\n|---:|---:|---:|---:|`,
  );
  for (const row of rows) console.log(row);
} finally {
  await knowledge.close();
  await enrollment.close();
  await env.cleanup();
}

/** `size` notes in folder f<size> (a quarter in f<size>/deep), each linking to the previous one. */
async function seed(projectId: string, size: number) {
  const words = JSON.stringify(WORDS);
  await sql`insert into notes (id, project, class, folder, title, body, lang, tsv, search_text,
      created_by, created_kind, updated_by, updated_kind)
    select gen_random_uuid(), ${projectId}, 'user-doc', case when i % 4 = 0 then ${`f${size}/deep`} else ${`f${size}`} end,
      t.title, t.body, 'ru',
      setweight(to_tsvector('russian', t.title), 'A') || setweight(to_tsvector('russian', t.body), 'B'),
      t.title, ${USER}, 'agent', ${USER}, 'agent'
    from generate_series(1, ${size}) as i,
      lateral (select ${`Заметка ${size}-`} || i as title) as h,
      lateral (select h.title,
        '# ' || h.title || E'\n\nСм. [[' || ${`Заметка ${size}-`} || (i - 1) || E']].\n\n' ||
        (select string_agg(${words}::jsonb ->> ((i * 7 + k * 13) % ${WORDS.length}), ' ')
         from generate_series(1, 80) as k) as body) as t`.execute(knowledge.db);
  const folder = `f${size}`;
  await sql`insert into note_revisions (note, version, action, title, folder, body, tags, by_user, by_kind)
    select id, 1, 'created', title, folder, body, tags, created_by, created_kind from notes
    where folder = ${folder} or folder like ${`${folder}/%`}`.execute(knowledge.db);
  await sql`insert into activity (note, project, owner, action, by_user, by_kind)
    select id, project, owner, 'created', created_by, created_kind from notes
    where folder = ${folder} or folder like ${`${folder}/%`} order by id`.execute(knowledge.db);
  const numbered = sql`select id, title, split_part(title, '-', 2)::int as i from notes
    where project = ${projectId} and title like ${`Заметка ${size}-%`}`;
  await sql`insert into links (id, from_note, type, to_note, to_title, to_key, origin)
    select gen_random_uuid(), n.id, 'mentions', p.id, p.title, 't:' || lower(p.title), 'body'
    from (${numbered}) as n join (${numbered}) as p on p.i = n.i - 1`.execute(knowledge.db);
}
