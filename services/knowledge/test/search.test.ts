import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  create_note,
  kb_whoami,
  link,
  move_folder,
  move_note,
  type Principal,
  recall,
  search,
  whoami,
} from '@studium/contracts';
import { asReceived, createTestEnv, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnowledge } from '../../../test/support/knowledge.ts';
import { startEnrollment } from '../../../test/support/stack.ts';
import { tsQueryText } from '../src/domain/query.ts';
import { estimateTokens } from '../src/domain/ranking.ts';
import { parseQuery } from '../src/query-parser.ts';
import { startReindex } from '../src/reindex.ts';
import { INDEX_VERSION } from '../src/repositories/note.repository.ts';
import { type Scope, SearchRepository } from '../src/repositories/search.repository.ts';
import { searchScope } from '../src/search.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;
let embedder: Server;
let embedderUrl: string;
let embedderDown = false;

const alice: Principal = {
  user: 'alice@test',
  full_name: 'Алия',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};

/**
 * The scripted OpenAI-compatible embeddings server: one dimension per concept, words of a concept
 * (synonyms that share no stem or trigram) map to it — what a real model does and text search cannot.
 */
const CONCEPTS = [
  ['машина', 'автомобиль', 'авто'],
  ['деньги', 'бюджет', 'финансы'],
  ['кот', 'кошка'],
];
function embed(text: string): number[] {
  return CONCEPTS.map((words) => words.filter((w) => text.toLowerCase().includes(w)).length);
}

beforeAll(async () => {
  env = await createTestEnv('kb-search');
  embedder = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (embedderDown) {
        res.writeHead(500).end();
        return;
      }
      const input = JSON.parse(body).input as string[];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })) }));
    });
  });
  await new Promise<void>((r) => embedder.listen(0, '127.0.0.1', r));
  embedderUrl = `http://127.0.0.1:${(embedder.address() as AddressInfo).port}/v1`;
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser('alice@test', 'Алия', ['Student']);
  await enrollment.admin.upsertOrganization('acme', 'Акме');
  await enrollment.admin.addMember('acme', 'alice@test', 'member');
  knowledge = await startKnowledge(env, { EMBEDDINGS_URL: embedderUrl });
});

afterAll(async () => {
  await knowledge?.close();
  await enrollment?.close();
  await new Promise((r) => embedder?.close(r));
  await env?.cleanup();
});

async function note(body: string) {
  const r = await env.bus.request(create_note, alice, { project: 'acme', body });
  if (!r.ok) throw new Error(r.error.code);
  return r.data.id;
}

/** The full-text list alone (every word, no typo correction), as search parses the query. */
async function fullText(query: string, scope: Scope) {
  const repo = new SearchRepository(knowledge.db);
  const parsed = await parseQuery(repo, query, knowledge.app.kb.ts.hunspell, scope);
  return repo.fullText(tsQueryText(parsed.exact, 'all') as string, scope, 10);
}

async function find(query: string) {
  const r = await env.bus.request(search, alice, { query });
  if (!r.ok) throw new Error(r.error.code);
  return r.data;
}

describe('search', () => {
  let ru: string;
  let kk: string;
  let car: string;
  let leave: string;
  beforeAll(async () => {
    ru = await note('# Мониторинг серверов\n\nКак следить за серверами и очередями задач в проде.');
    kk = await note('# Мектептің кітаптары\n\nМұғалімге арналған нұсқаулық: оқушыларға кітапты қалай беру керек.');
    car = await note('# Автомобиль компании\n\nКто и когда берёт служебный автомобиль.');
    leave = await note('# Отпуск\n\nЗаявление на отпуск подают за две недели.');
  });

  it('finds a Russian note by other word forms (russian stemming)', async () => {
    expect(knowledge.app.kb.ts.kazakh).toBe(true);
    const scope = searchScope(await knowledge.app.kb.access.projects(asReceived(alice, whoami.subject)), alice.user);
    const fts = await fullText('сервером очередью', scope);
    expect(fts[0]).toBe(ru);
    const r = await find('сервером очередью');
    expect(r.results[0]).toMatchObject({
      id: ru,
      title: 'Мониторинг серверов',
      path: '',
      project: 'acme',
      trust: 'untrusted',
    });
    expect(r.results[0].snippet).toContain('сервер');
  });

  it('finds a Kazakh note by other word forms (hunspell-kk)', async () => {
    const scope = searchScope(await knowledge.app.kb.access.projects(asReceived(alice, whoami.subject)), alice.user);
    const fts = await fullText('мектепте оқушылар мұғалімдер', scope);
    expect(fts).toEqual([kk]);
    expect((await find('мектепте оқушылар')).results[0].id).toBe(kk);
    const lang = await knowledge.db.selectFrom('notes').select('lang').where('id', '=', kk).executeTakeFirstOrThrow();
    expect(lang.lang).toBe('kk');
  });

  it('trigram similarity finds what stemming misses (a typo)', async () => {
    expect((await find('Мониторнг')).results[0].id).toBe(ru);
  });

  it('semantic similarity finds a synonym, fused with RRF into scores that can be told apart', async () => {
    const available = await knowledge.database.pool.query(
      `select 1 from pg_available_extensions where name = 'vector'`,
    );
    expect(knowledge.app.kb.pgvector).toBe((available.rowCount ?? 0) > 0);
    const r = await find('машина');
    expect(r.modes).toEqual(['fts', 'trigram', 'vector']);
    expect(r.results[0].id).toBe(car);
    const scores = r.results.map((x: { score: number }) => x.score);
    expect(scores[0]).toBeGreaterThan(0);
    expect(scores[0]).toBeLessThanOrEqual(1);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const both = await find('автомобиль');
    expect(both.results[0].id).toBe(car);
    expect(both.results[0].score).toBeGreaterThan(r.results[0].score);
  });

  it('a moved note keeps its vector (moves do not change the text and are not embedded again)', async () => {
    const vectorOf = async () =>
      (await knowledge.db.selectFrom('notes').select(['embedding']).where('id', '=', car).executeTakeFirstOrThrow())
        .embedding;
    const before = await vectorOf();
    expect(before).toHaveLength(CONCEPTS.length);
    const moved = await env.bus.request(move_note, alice, { id: car, path: 'fleet' });
    expect(moved.ok).toBe(true);
    const folder = await env.bus.request(move_folder, alice, { project: 'acme', path: 'fleet', newParent: 'ops' });
    expect(folder.ok && folder.data.moved).toBe(1);
    expect(await vectorOf()).toEqual(before);
    const r = await find('машина');
    expect(r.results[0]).toMatchObject({ id: car, path: 'ops/fleet' });
  });

  it('compares only vectors of the query dimension (vectors of another model are skipped, not an error)', async () => {
    // Two dimensions, pointing where "машина" points: in the SQL function the missing third
    // element would not count, and the note would pass as a perfect match.
    await knowledge.db
      .updateTable('notes')
      .set({ embedding: [1, 0] })
      .where('id', '=', leave)
      .execute();
    const scope = searchScope(await knowledge.app.kb.access.projects(asReceived(alice, whoami.subject)), alice.user);
    const repo = new SearchRepository(knowledge.db);
    expect(await repo.vector([1, 0, 0], scope, 10)).toEqual([car]);
    expect(await repo.vector([1, 0], scope, 10)).toEqual([leave]);
    expect(await repo.vector([0, 0, 0], scope, 10)).toEqual([]);
    expect((await find('машина')).results.map((x: { id: string }) => x.id)).not.toContain(leave);
  });

  it('without pgvector, compares vectors only up to the scan limit, then stays on text; whoami says so', async () => {
    const kb = knowledge.app.kb;
    const who = await env.bus.request(kb_whoami, alice, {});
    if (!who.ok) throw new Error(who.error.code);
    expect(who.data.capabilities).toMatchObject(
      kb.pgvector
        ? { vector: true, semantic: 'pgvector', vectorScanLimit: null }
        : { vector: true, vectorStore: 'column', semantic: 'scan', vectorScanLimit: 200 },
    );
    if (kb.pgvector) return;
    const embedded = await knowledge.db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('embedding', 'is not', null)
      .executeTakeFirstOrThrow();
    const limit = kb.vectorScanLimit;
    try {
      kb.vectorScanLimit = Number(embedded.n);
      expect((await find('машина')).modes).toEqual(['fts', 'trigram', 'vector']);
      kb.vectorScanLimit = Number(embedded.n) - 1;
      const r = await find('машина');
      expect(r.modes).toEqual(['fts', 'trigram']);
      expect(r.results.map((x: { id: string }) => x.id)).not.toContain(car);
    } finally {
      kb.vectorScanLimit = limit;
    }
  });

  it('keeps working on full text, without error, when the embedding provider fails', async () => {
    embedderDown = true;
    try {
      const r = await find('сервера');
      expect(r.modes).toEqual(['fts', 'trigram']);
      expect(r.results[0].id).toBe(ru);
    } finally {
      embedderDown = false;
    }
  });
});

describe('re-indexing notes written before the index of issue 21', () => {
  it('rebuilds the vector and the vocabulary of old notes at start, without a new version', async () => {
    const id = await note(
      '# Бөлшектер сабағы\n\nОқушылар бөлшектерді қосты. Для родителей: повторите сложение дробей.',
    );
    // What migration 0003 leaves: the old vector (here the Kazakh configuration alone) and version 0.
    await sql`update notes set tsv = to_tsvector(${knowledge.app.kb.ts.hunspell ?? 'simple'}::regconfig, body),
      index_version = 0 where id = ${id}`.execute(knowledge.db);
    await sql`delete from kb_vocabulary`.execute(knowledge.db);
    const before = await knowledge.db
      .selectFrom('notes')
      .select(['version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect((await find('дроби')).results.map((x: { id: string }) => x.id)).not.toContain(id);
    await startReindex(knowledge.db, knowledge.app.kb.ts.hunspell, env.log).done;
    const after = await knowledge.db
      .selectFrom('notes')
      .select(['version', 'index_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ version: before.version, index_version: INDEX_VERSION });
    expect((await find('дроби')).results.map((x: { id: string }) => x.id)).toContain(id);
    expect((await find('бөлшек')).results.map((x: { id: string }) => x.id)).toContain(id);
    const words = await sql<{ n: number }>`select count(*)::int as n from kb_vocabulary`.execute(knowledge.db);
    expect(words.rows[0].n).toBeGreaterThan(0);
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from notes where index_version < ${INDEX_VERSION}`.execute(knowledge.db);
    expect(left.rows[0].n).toBe(0);
  });
});

describe('recall', () => {
  let hub: string;
  let neighbour: string;
  let far: string;
  beforeAll(async () => {
    hub = await note(`# Инцидент с биллингом\n\n${'Разбор инцидента: биллинг списал дважды. '.repeat(20)}`);
    neighbour = await note(`# Runbook платежей\n\n${'Шаги восстановления платёжного шлюза. '.repeat(10)}`);
    far = await note('# Контакты дежурных\n\nТелефоны дежурной смены.');
    for (const [from, to] of [
      [hub, neighbour],
      [neighbour, far],
    ]) {
      const r = await env.bus.request(link, alice, { from, type: 'relates', to });
      expect(r.ok).toBe(true);
    }
  });

  async function bundle(budgetTokens: number, depth?: number) {
    const r = await env.bus.request(recall, alice, { topic: 'инцидент биллинг', budgetTokens, depth });
    if (!r.ok) throw new Error(r.error.code);
    const d = r.data;
    // usedTokens counts the whole reply: the envelope, then each item and the comma before it.
    const counted = d.items.reduce((s, i) => s + estimateTokens(JSON.stringify({ ...i, tokens: 99_999 })) + 1, 0);
    const envelope = estimateTokens(JSON.stringify({ ...d, usedTokens: 99_999, truncated: false, items: [] }));
    expect(envelope + counted).toBe(d.usedTokens);
    expect(estimateTokens(JSON.stringify(d))).toBeLessThanOrEqual(d.usedTokens);
    expect(d.usedTokens).toBeLessThanOrEqual(budgetTokens);
    return d;
  }

  it('never exceeds the budget, cutting the last item that does not fit', async () => {
    for (const budget of [100, 150, 200, 300]) {
      const d = await bundle(budget);
      expect(d.truncated).toBe(true);
      if (d.items.length) expect(d.items[0].id).toBe(hub);
    }
    const small = await bundle(200);
    expect(small.items.map((i) => i.id)).toEqual([hub]);
    expect(small.items[0].cut).toBe(true);
    expect(small.items[0].content.endsWith('…')).toBe(true);
  });

  it('with a larger budget includes the graph neighbours, depth-limited, each once', async () => {
    const d1 = await bundle(4000, 1);
    expect(d1.items.find((i) => i.id === neighbour)).toMatchObject({ relation: 'neighbour', via: hub, cut: false });
    expect(d1.items.find((i) => i.id === far)).toBeUndefined();
    const d2 = await bundle(4000, 2);
    expect(d2.items.find((i) => i.id === far)).toMatchObject({ relation: 'neighbour', via: neighbour });
    expect(new Set(d2.items.map((i) => i.id)).size).toBe(d2.items.length);
    expect(d2.truncated).toBe(false);
  });
});
