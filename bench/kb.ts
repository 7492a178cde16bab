// `npm run bench:kb`: /kb search and recall over 10,000 notes, beside whoami from the same run.
// Starts enrollment, knowledge and the edge as separate processes with their own database and
// subject prefix, seeds 10,000 notes (90% Russian, 10% Kazakh, about 120 words each, 20,000
// links) straight into the knowledge schema, then drives the edge with the SDK 2.x client.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { migrate, openDatabase, PLATFORM_MIGRATIONS } from '@studium/platform';
import { connect as natsConnect } from 'nats';
import { ensureServices } from '../scripts/ensure-services.ts';
import { EnrollmentAdmin } from '../services/enrollment/src/admin.ts';
import { MIGRATIONS } from '../services/enrollment/src/app.ts';
import type { EnrollmentDb } from '../services/enrollment/src/db.ts';
import type { KnowledgeDb } from '../services/knowledge/src/db.ts';
import { kazakhStemText } from '../services/knowledge/src/domain/index-text.ts';
import { detectLanguage } from '../services/knowledge/src/domain/language.ts';
import { addWords, INDEX_VERSION } from '../services/knowledge/src/repositories/note.repository.ts';
import { benchPlace, connect, measure, measureInterleaved, spawnTs, teardownBench } from './harness.ts';

const NOTES = Number(process.env.BENCH_NOTES ?? 10_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const USER = 'bench@studium';

const RU = (
  'сервер очередь задача релиз клиент договор оплата счёт биллинг инцидент дежурство мониторинг метрика алерт база данных ' +
  'индекс запрос репликация бэкап восстановление миграция схема таблица сервис шлюз платёж возврат скидка заказ склад ' +
  'доставка курьер маршрут отчёт продажа воронка лид звонок встреча команда руководитель сотрудник отпуск график смена ' +
  'обучение курс урок тест квиз ответ вопрос документ регламент политика безопасность доступ токен пароль роль права ' +
  'проект план срок бюджет риск решение архитектура модуль интерфейс контракт событие поток кэш память процессор нагрузка'
).split(' ');
const RU_FORMS = ['', 'а', 'ы', 'ов', 'ом', 'ами', 'е', 'у'];
const KK = (
  'мектеп оқушы мұғалім сабақ кітап білім жоба жоспар есеп қызмет төлем тапсырыс клиент жұмыс уақыт күн апта ' +
  'құжат ереже қауіпсіздік рұқсат топ басшы қызметкер оқу курс сұрақ жауап тексеру нәтиже жүйе дерек'
).split(' ');
const KK_FORMS = ['', 'тар', 'тың', 'қа', 'да', 'ды', 'ның', 'лар'];

function pick<T>(a: T[]): T {
  return a[Math.floor(Math.random() * a.length)];
}

function text(kazakh: boolean, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(kazakh ? pick(KK) + pick(KK_FORMS) : pick(RU) + pick(RU_FORMS));
  return out.join(' ');
}

await ensureServices();
const { prefix, databaseUrl, env } = await benchPlace('kb');
const nc = await natsConnect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const children: ChildProcess[] = [];
try {
  const enrollmentDb = openDatabase<EnrollmentDb>(databaseUrl, 'enrollment', 2);
  await migrate(enrollmentDb.pool, 'enrollment', [PLATFORM_MIGRATIONS, MIGRATIONS]);
  const admin = new EnrollmentAdmin(enrollmentDb.db);
  await admin.upsertOrganization('acme', 'Акме');
  await admin.upsertUser(USER, 'Бенч Бенчев', ['Student']);
  await admin.addMember('acme', USER, 'member');
  const { token } = await admin.issueToken(USER);
  await enrollmentDb.close();

  for (const entry of ['services/enrollment/src/main.ts', 'services/knowledge/src/main.ts']) {
    children.push((await spawnTs(entry, env, /service started/)).child);
  }
  const edge = await spawnTs('services/edge/src/main.ts', env, /Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(edge.child);
  const kb = await connect(`http://127.0.0.1:${edge.match[1]}/kb`, token);
  const mcp = await connect(`http://127.0.0.1:${edge.match[1]}/mcp`, token);
  await kb.callTool({ name: 'get_my_projects', arguments: {} });

  // Seed: the same columns the service writes (note_tsv with the Kazakh stems, vocabulary, trigram text, revision).
  const k = openDatabase<KnowledgeDb>(databaseUrl, 'knowledge', 2);
  const [{ id: project }] = (
    await k.pool.query<{ id: string }>(`select id from projects where space = 'acme' and slug = ''`)
  ).rows;
  const kazakhCfg = (
    await k.pool.query(
      `select 1 from pg_ts_config where cfgname = 'kazakh' and cfgnamespace = 'knowledge'::regnamespace`,
    )
  ).rowCount
    ? 'knowledge.kazakh'
    : null;
  const started = performance.now();
  const ids: string[] = [];
  for (let b = 0; b < NOTES; b += 500) {
    const rows = Array.from({ length: Math.min(500, NOTES - b) }, (_, i) => {
      const kazakh = (b + i) % 10 === 0;
      const title = `${text(kazakh, 3)} ${b + i}`;
      const body = `# ${title}\n\n${text(kazakh, 60 + Math.floor(Math.random() * 120))}`;
      const lang = detectLanguage(body);
      const noteId = randomUUID();
      ids.push(noteId);
      return {
        id: noteId,
        title,
        body,
        folder: `f${(b + i) % 50}`,
        kk_title: kazakhStemText(title),
        kk_body: kazakhStemText(body),
        lang,
      };
    });
    await k.pool.query(
      `insert into notes (id, project, class, folder, title, body, lang, tsv, index_version, search_text, created_by, created_kind, updated_by, updated_kind)
       select r.id, $1, 'user-doc', r.folder, r.title, r.body, r.lang,
         note_tsv(r.title, r.body, r.kk_title, r.kk_body, $4::regconfig), $5,
         r.title, $2, 'agent', $2, 'agent'
       from json_to_recordset($3::json) as r(id uuid, title text, body text, folder text, kk_title text, kk_body text, lang text)`,
      [project, USER, JSON.stringify(rows), kazakhCfg, INDEX_VERSION],
    );
  }
  await k.pool.query(
    `insert into note_revisions (note, version, action, title, folder, body, tags, by_user, by_kind)
     select id, 1, 'created', title, folder, body, tags, created_by, created_kind from notes`,
  );
  const links = Array.from({ length: NOTES * 2 }, () => [pick(ids), pick(ids)]).filter(([a, b]) => a !== b);
  await k.pool.query(
    `insert into links (id, from_note, type, to_note, to_key, origin)
     select gen_random_uuid(), l.f, 'relates', l.t, 'id:' || l.t, 'tool' from json_to_recordset($1::json) as l(f uuid, t uuid)
     on conflict do nothing`,
    [JSON.stringify(links.map(([f, t]) => ({ f, t })))],
  );
  // The vocabulary as the service's writes fill it (addWords: each lexeme under its note's scope).
  await addWords(k.db, ids);
  await k.pool.query('analyze notes; analyze links; analyze kb_vocabulary');
  await k.close();
  console.log(
    `seeded ${NOTES} notes and ${links.length} links in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const queries = Array.from({ length: 50 }, (_, i) =>
    i % 10 === 0 ? `${pick(KK)}${pick(KK_FORMS)} ${pick(KK)}` : `${pick(RU)}${pick(RU_FORMS)} ${pick(RU)}`,
  );
  // Misspelt queries: a letter of each word dropped, so no note has them and the typo path runs.
  const misspelt = queries.map((x) => x.replace(/(^|\s)(\p{L}{3})\p{L}/gu, '$1$2'));
  let q = 0;
  const next = () => queries[q++ % queries.length];
  let t = 0;
  const nextTypo = () => misspelt[t++ % misspelt.length];
  const call = (client: typeof kb, name: string, args: () => Record<string, unknown>) => () =>
    client.callTool({ name, arguments: args() });
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['/mcp whoami', call(mcp, 'whoami', () => ({}))],
    ['/kb whoami', call(kb, 'whoami', () => ({}))],
    ['/kb search (10 results)', call(kb, 'search', () => ({ query: next() }))],
    ['/kb search, misspelt (10 results)', call(kb, 'search', () => ({ query: nextTypo() }))],
    ['/kb recall, budgetTokens 4000, depth 1', call(kb, 'recall', () => ({ topic: next(), budgetTokens: 4000 }))],
  ];
  for (const [name, c] of cases) {
    const t = performance.now();
    const r = (await c()) as { isError?: boolean; content?: unknown };
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    if (process.env.BENCH_DEBUG) console.log(name, (performance.now() - t).toFixed(1), 'ms');
  }
  for (const [, c] of cases) await measure(c, 50, 4);
  const stats = await measureInterleaved(
    cases.map(([, c]) => c),
    CALLS,
    1,
  );
  console.log(
    `\n${NOTES} notes, ${CALLS} calls per case, 1 in flight\n\n| case | p50 ms | p99 ms | calls/s |\n|---|---:|---:|---:|`,
  );
  for (const [i, [name]] of cases.entries()) {
    const s = stats[i];
    console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.perSecond.toFixed(0)} |`);
  }
  await kb.close();
  await mcp.close();
} finally {
  await teardownBench({ children, nc, prefix, databaseUrl, keepDatabase: !!process.env.BENCH_KEEP_DB });
}
