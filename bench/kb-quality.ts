// `npm run bench:kb-quality`: search quality on the judged corpus (bench/kb-quality/corpus.json,
// made by bench/kb-quality/generate.ts): the real knowledge service with its own database and
// subject prefix, the notes written through `create_notes` (so they are indexed as in production),
// every query asked through `search`. Prints recall@5 and MRR per group; BENCH_DEBUG=1 lists the
// queries whose notes did not all come back in the first five.
import { readFileSync } from 'node:fs';
import { create_notes, type Principal, search } from '@studium/contracts';
import { createTestEnv } from '@studium/testing';
import { ensureServices } from '../scripts/ensure-services.ts';
import { startKnowledge } from '../test/support/knowledge.ts';
import { startEnrollment } from '../test/support/stack.ts';
import type { CorpusNote, CorpusQuery, Group } from './kb-quality/generate.ts';

const corpus = JSON.parse(readFileSync(new URL('./kb-quality/corpus.json', import.meta.url), 'utf8')) as {
  notes: CorpusNote[];
  queries: CorpusQuery[];
};
const teacher: Principal = {
  user: 'teacher@bench',
  full_name: 'Мұғалім',
  roles: ['Student'],
  scope: 'write',
  space: 'personal',
};

await ensureServices();
const env = await createTestEnv('kb-quality');
const enrollment = await startEnrollment(env);
const knowledge = await startKnowledge(env);
try {
  await enrollment.admin.upsertUser(teacher.user, teacher.full_name, ['Student']);
  await enrollment.admin.upsertOrganization('school', 'Мектеп');
  await enrollment.admin.addMember('school', teacher.user, 'member');
  const ids = new Map<string, string>();
  for (let i = 0; i < corpus.notes.length; i += 50) {
    const batch = corpus.notes.slice(i, i + 50);
    const r = await env.bus.request(create_notes, teacher, {
      project: 'school',
      notes: batch.map((n) => ({ body: n.body })),
    });
    if (!r.ok) throw new Error(r.error.code);
    for (const x of r.data.results) {
      if (!x.ok || !x.id) throw new Error(`note ${batch[x.index].key}: ${JSON.stringify(x.error)}`);
      ids.set(x.id, batch[x.index].key);
    }
  }
  await knowledge.database.pool.query('analyze');

  const groups = new Map<Group, { recall: number; rr: number; n: number; ms: number[] }>();
  const misses: string[] = [];
  for (const q of corpus.queries) {
    const t = performance.now();
    const r = await env.bus.request(search, teacher, { query: q.query, limit: 10 });
    const ms = performance.now() - t;
    if (!r.ok) throw new Error(`${q.query}: ${r.error.code}`);
    const keys = r.data.results.map((x) => ids.get(x.id) ?? '?');
    const top5 = keys.slice(0, 5);
    const found = q.relevant.filter((k) => top5.includes(k)).length;
    const recall = found / Math.min(5, q.relevant.length);
    const first = keys.findIndex((k) => q.relevant.includes(k));
    const g = groups.get(q.group) ?? { recall: 0, rr: 0, n: 0, ms: [] };
    g.recall += recall;
    g.rr += first < 0 ? 0 : 1 / (first + 1);
    g.n++;
    g.ms.push(ms);
    groups.set(q.group, g);
    if (recall < 1)
      misses.push(`${q.group}: «${q.query}» found ${found}/${q.relevant.length}; top 5: ${top5.join(' ')}`);
  }
  console.log(`\n${corpus.notes.length} notes, ${corpus.queries.length} queries\n`);
  console.log('| group | queries | recall@5 | MRR | p50 ms |\n|---|---:|---:|---:|---:|');
  for (const [name, g] of groups) {
    const p50 = [...g.ms].sort((a, b) => a - b)[Math.floor(g.ms.length / 2)];
    console.log(
      `| ${name} | ${g.n} | ${(g.recall / g.n).toFixed(3)} | ${(g.rr / g.n).toFixed(3)} | ${p50.toFixed(1)} |`,
    );
  }
  if (process.env.BENCH_DEBUG) console.log(`\n${misses.join('\n')}`);
  else if (misses.length)
    console.log(`\n${misses.length} queries missed a note in the first five (BENCH_DEBUG=1 lists them)`);
} finally {
  await knowledge.close();
  await enrollment.close();
  await env.cleanup();
}
