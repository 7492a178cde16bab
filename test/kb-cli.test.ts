import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { create_note, delete_note, get_note, type Principal } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnowledge } from './support/knowledge.ts';
import { startEnrollment } from './support/stack.ts';

// The trash as a person handles it: `npm run studium -- kb trash|restore|purge`, a separate process
// against the same database, while the knowledge service runs.
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
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

/** Runs the CLI; a non-zero exit resolves too, with its code. */
async function kb(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(
      resolve(root, 'node_modules/.bin/tsx'),
      [resolve(root, 'scripts/cli.ts'), 'kb', ...args],
      {
        env: { ...process.env, DATABASE_URL: env.databaseUrl, SUBJECT_PREFIX: env.prefix, ...env.natsEnv('operator') },
      },
    );
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

async function create(body: string, path = '') {
  const r = await env.bus.request(create_note, alice, { project: 'acme', body, path });
  if (!r.ok) throw new Error(r.error.code);
  return r.data.id;
}

async function trash(id: string) {
  expect((await env.bus.request(delete_note, alice, { id })).ok).toBe(true);
}

async function visible(ref: string) {
  return (await env.bus.request(get_note, alice, { ref, project: 'acme' })).ok;
}

beforeAll(async () => {
  env = await createTestEnv('kb-cli');
  enrollment = await startEnrollment(env);
  await enrollment.admin.upsertUser('alice@test', 'Алия', ['Student']);
  await enrollment.admin.upsertOrganization('acme', 'Акме');
  await enrollment.admin.addMember('acme', 'alice@test', 'member');
  knowledge = await startKnowledge(env);
});

afterAll(async () => {
  await knowledge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

// Starting a tsx process takes seconds on a loaded machine: the whole file gets more time.
describe('kb trash, restore and purge through the admin CLI', { timeout: 120_000 }, () => {
  let old: string;
  let again: string;

  it('lists the trash, and refuses a restore while another live note has the title', async () => {
    old = await create('# Старый регламент\n\nТекст.', 'ops');
    await create('# Ссылается\n\nСм. [[Старый регламент]].');
    await trash(old);
    again = await create('# Старый регламент\n\nНовый текст.');
    const [listed, refused, noBy] = await Promise.all([
      kb('trash'),
      kb('restore', old, '--by', 'admin@test'),
      kb('restore', old),
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${old}  \\S+  alice@test  ops/Старый регламент$`, 'm'));
    expect(refused).toMatchObject({ code: 1, stdout: expect.stringContaining('[titleTaken]') });
    expect(noBy.code).toBe(1);
    const row = await knowledge.db.selectFrom('notes').select(['deleted_at']).where('id', '=', old).executeTakeFirst();
    expect(row?.deleted_at).not.toBeNull();
  });

  it('restores a note in the name of a person: back in every tool, with a revision, activity and an event', async () => {
    await trash(again);
    const before = await knowledge.db
      .selectFrom('notes')
      .select(['version'])
      .where('id', '=', old)
      .executeTakeFirstOrThrow();
    const restored = await kb('restore', old, '--by', 'admin@test');
    expect(restored).toEqual({ code: 0, stdout: `restored ${old} (Старый регламент)\n` });
    expect(await visible('[[Старый регламент]]')).toBe(true);
    const rev = await knowledge.db
      .selectFrom('note_revisions')
      .select(['version', 'action', 'by_user', 'by_kind'])
      .where('note', '=', old)
      .orderBy('version', 'desc')
      .executeTakeFirstOrThrow();
    expect(rev).toEqual({ version: before.version + 1, action: 'restored', by_user: 'admin@test', by_kind: 'human' });
    const { rows } = await sql<{ data: Record<string, unknown> }>`
      select payload->'data' as data from outbox order by id desc limit 1`.execute(knowledge.db);
    expect(rows[0].data).toMatchObject({ note: old, action: 'restored', by: 'admin@test', by_kind: 'human' });
  });

  it('purges only trashed notes, for good, with their revisions', async () => {
    const [live, trashed, bad] = await Promise.all([kb('purge', old), kb('purge', again), kb('purge', 'not-an-id')]);
    expect(live).toMatchObject({ code: 1, stdout: expect.stringContaining('[noteNotFound]') });
    expect(await visible(old)).toBe(true);
    expect(trashed).toEqual({ code: 0, stdout: `purged ${again}\n` });
    expect(bad).toMatchObject({ code: 1, stdout: expect.stringContaining('[noteNotFound]') });
    for (const table of ['notes', 'note_revisions'] as const) {
      const col = table === 'notes' ? 'id' : 'note';
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(table)} where ${sql.ref(col)} = ${again}`.execute(knowledge.db);
      expect(rows[0].n, table).toBe(0);
    }
    const twice = await kb('purge', again);
    expect(twice).toMatchObject({ code: 1, stdout: expect.stringContaining('[noteNotFound]') });
    expect((await kb('trash')).stdout).toBe('');
  });
});
