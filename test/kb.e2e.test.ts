import { kbTools, remember } from '@studium/contracts';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { startKnowledge } from './support/knowledge.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let alice: AgentClient;
let bob: AgentClient;
let reader: AgentClient;
let carol: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('kb-e2e');
  enrollment = await startEnrollment(env);
  knowledge = await startKnowledge(env);
  edge = await startEdge(env);
  const a = enrollment.admin;
  await a.upsertUser('alice@test', 'Алия', ['Student']);
  await a.upsertUser('bob@test', 'Бауыржан', ['Student']);
  await a.upsertUser('carol@test', 'Карина', ['Student']);
  await a.upsertOrganization('acme', 'Акме');
  await a.upsertOrganization('beta', 'Бета');
  await a.upsertOrganization('gamma', 'Гамма');
  await a.addMember('acme', 'alice@test', 'member');
  await a.addMember('beta', 'alice@test', 'manager');
  await a.addMember('acme', 'bob@test', 'member');
  await a.addMember('gamma', 'carol@test', 'member');
  await knowledge.admin.createProject('acme', 'docs', 'Документация');
  const url = `${edge.url}/kb`;
  alice = await connectAgent('v2', url, (await a.issueToken('alice@test')).token);
  bob = await connectAgent('v1', url, (await a.issueToken('bob@test')).token);
  reader = await connectAgent('v2', url, (await a.issueToken('alice@test', { scope: 'read' })).token);
  carol = await connectAgent('v2', url, (await a.issueToken('carol@test')).token);
});

afterAll(async () => {
  for (const c of [alice, bob, reader, carol]) await c?.close();
  await edge?.close();
  await knowledge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

async function call(c: AgentClient, name: string, args: Record<string, unknown> = {}) {
  return data(await c.callTool(name, args)) as Record<string, any>;
}

/** The refusal of a tool result (`{ code, message, … }`); fails when the call succeeded. */
async function refusal(c: AgentClient, name: string, args: Record<string, unknown>) {
  const r: ToolResult = await c.callTool(name, args);
  expect(r.isError, text(r)).toBe(true);
  const sc = r.structuredContent as { ok: false; error: Record<string, any> } | undefined;
  if (!sc) throw new Error(`no refusal: ${text(r)}`);
  return sc.error;
}

describe('tools/list and scopes', () => {
  it('a write token sees the 21 tools of spec 004 with static descriptions', async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name)).toEqual(kbTools.map((t) => t.name));
    expect(tools).toHaveLength(21);
    for (const t of tools) expect(t.description).toBe(kbTools.find((k) => k.name === t.name)?.description);
  });

  it('a read-scoped token sees no write tool, and a write call is refused', async () => {
    const { tools } = await reader.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([
      'start_session',
      'whoami',
      'get_my_projects',
      'list_notes',
      'recent_activity',
      'search',
      'get_note',
      'recall',
    ]);
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
    const r = await reader.callTool('create_note', { project: 'acme', body: '# Через read-токен' });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('нет доступа к этим данным');
    const search = await call(alice, 'search', { query: 'Через read-токен' });
    expect(search.results).toEqual([]);
  });

  it('whoami: principal, scope, memberships with projects, capabilities', async () => {
    expect(await call(reader, 'whoami')).toMatchObject({
      principal: 'alice@test',
      scope: 'read',
      memberships: [
        { space: 'acme', role: 'member', projects: ['acme', 'acme/docs'] },
        { space: 'beta', role: 'manager', projects: ['beta'] },
      ],
      capabilities: { vector: false, trash: true, revisions: true },
    });
  });

  it('get_my_projects: handles as is, the root project collapsed to the space', async () => {
    const r = await call(alice, 'get_my_projects');
    expect(r.projects).toEqual([
      { handle: 'acme', title: 'Акме', space: 'acme' },
      { handle: 'acme/docs', title: 'Документация', space: 'acme' },
      { handle: 'beta', title: 'Бета', space: 'beta' },
    ]);
    expect((await call(carol, 'get_my_projects')).projects.map((p: { handle: string }) => p.handle)).toEqual(['gamma']);
  });
});

describe('links that resolve, renames and moves that keep them', () => {
  const ids: Record<string, string> = {};

  it('creates a note whose links point at notes that do not exist yet', async () => {
    const a = await call(alice, 'create_note', {
      project: 'acme/docs',
      body: '# Архитектура\n\nСм. [[Очереди]] и [[Хранилище]].',
      path: 'arch',
      tags: ['core'],
      links: [{ type: 'depends_on', toTitle: 'Очереди' }],
    });
    ids.a = a.id;
    expect(a).toMatchObject({ title: 'Архитектура', path: 'arch', project: 'acme/docs' });
    expect(a.links).toEqual([
      expect.objectContaining({ type: 'depends_on', to: null, toTitle: 'Очереди', resolved: false }),
    ]);
    const got = await call(alice, 'get_note', { ref: a.id, detailed: true });
    expect(got.links.outgoing.every((l: { resolved: boolean }) => !l.resolved)).toBe(true);
    expect(got.outline).toEqual([{ level: 1, heading: 'Архитектура' }]);
    expect(got).toMatchObject({
      class: 'user-doc',
      trust: 'untrusted',
      origin: { created_by: { user: 'alice@test', kind: 'agent' } },
    });
  });

  it('creating the targets resolves every forward reference', async () => {
    ids.q = (await call(bob, 'create_note', { project: 'acme/docs', body: '# Очереди\n\nBullMQ поверх Redis.' })).id;
    ids.s = (
      await call(bob, 'create_note', { project: 'acme/docs', body: '# Хранилище\n\nPostgreSQL.', path: 'arch' })
    ).id;
    const got = await call(alice, 'get_note', { ref: ids.a, detailed: true });
    const targets = got.links.outgoing.map((l: { type: string; to: string }) => [l.type, l.to]).sort();
    expect(targets).toEqual(
      [
        ['depends_on', ids.q],
        ['mentions', ids.q],
        ['mentions', ids.s],
      ].sort(),
    );
    const q = await call(alice, 'get_note', { ref: '[[Очереди]]', project: 'acme/docs', detailed: true });
    expect(q.id).toBe(ids.q);
    expect(q.links.incoming.map((l: { from: string }) => l.from)).toEqual([ids.a, ids.a]);
  });

  it('rename_note keeps the old title as an alias: [[links]] still resolve', async () => {
    const r = await call(alice, 'rename_note', { id: ids.q, title: 'Очереди задач' });
    expect(r.title).toBe('Очереди задач');
    const byOld = await call(alice, 'get_note', { ref: '[[Очереди]]' });
    expect(byOld).toMatchObject({ id: ids.q, title: 'Очереди задач', aliases: ['Очереди'] });
    expect(byOld.content.startsWith('# Очереди задач')).toBe(true);
    const a = await call(alice, 'get_note', { ref: ids.a, detailed: true });
    expect(a.links.outgoing.filter((l: { to: string }) => l.to === ids.q)).toHaveLength(2);
  });

  it('move_note, move_folder and rename_folder keep ids and links', async () => {
    expect(await call(alice, 'move_note', { id: ids.q, path: 'infra' })).toMatchObject({ id: ids.q, path: 'infra' });
    expect(await call(alice, 'move_folder', { project: 'acme/docs', path: 'arch', newParent: 'infra' })).toMatchObject({
      from: 'arch',
      to: 'infra/arch',
      moved: 2,
    });
    expect(
      await call(alice, 'rename_folder', { project: 'acme/docs', path: 'infra/arch', name: 'design' }),
    ).toMatchObject({
      to: 'infra/design',
      moved: 2,
    });
    const a = await call(alice, 'get_note', { ref: '[[Архитектура]]', detailed: true });
    expect(a).toMatchObject({ id: ids.a, path: 'infra/design' });
    expect(a.links.outgoing.map((l: { to: string }) => l.to).sort()).toEqual([ids.q, ids.q, ids.s].sort());
    for (const ref of ['[[Очереди]]', '[[Очереди задач]]', '[[Хранилище]]']) {
      expect((await call(alice, 'get_note', { ref, project: 'acme/docs' })).id).toBeTruthy();
    }
    const root = await call(alice, 'list_notes', { project: 'acme/docs' });
    expect(root.folders).toEqual(['infra']);
    const infra = await call(alice, 'list_notes', { project: 'acme/docs', path: 'infra' });
    expect(infra.folders).toEqual(['infra/design']);
    expect(infra.notes.map((n: { title: string }) => n.title)).toEqual(['Очереди задач']);
  });

  it('two agents edit one note: the stale one gets versionConflict, nothing is lost', async () => {
    const seenByAlice = await call(alice, 'get_note', { ref: ids.s });
    const seenByBob = await call(bob, 'get_note', { ref: ids.s });
    const first = await call(alice, 'edit_note', {
      id: ids.s,
      versionToken: seenByAlice.versionToken,
      mode: 'append',
      content: 'Реплика для чтения.',
    });
    expect(first.versionToken).not.toBe(seenByAlice.versionToken);
    const conflict = await refusal(bob, 'edit_note', {
      id: ids.s,
      versionToken: seenByBob.versionToken,
      mode: 'append',
      content: 'Бэкапы каждую ночь.',
    });
    expect(conflict).toMatchObject({ code: 'versionConflict', currentVersionToken: first.versionToken });
    const fresh = await call(bob, 'get_note', { ref: ids.s });
    await call(bob, 'edit_note', {
      id: ids.s,
      versionToken: fresh.versionToken,
      mode: 'append',
      content: 'Бэкапы каждую ночь.',
    });
    const final = await call(alice, 'get_note', { ref: ids.s });
    expect(final.content).toContain('Реплика для чтения.');
    expect(final.content).toContain('Бэкапы каждую ночь.');
    const revisions = await knowledge.db
      .selectFrom('note_revisions')
      .select(['version', 'action'])
      .where('note', '=', ids.s)
      .orderBy('version')
      .execute();
    expect(revisions.map((r) => r.action)).toEqual(['created', 'moved', 'moved', 'edited', 'edited']);
  });

  it('delete_note moves to the trash; only a person restores', async () => {
    expect(await call(bob, 'delete_note', { id: ids.s })).toEqual({ id: ids.s, title: 'Хранилище', trashed: true });
    expect((await refusal(alice, 'get_note', { ref: ids.s })).code).toBe('noteNotFound');
    expect((await refusal(alice, 'get_note', { ref: '[[Хранилище]]' })).code).toBe('noteNotFound');
    expect((await call(alice, 'list_notes', { project: 'acme/docs', path: 'infra/design' })).notes).toHaveLength(1);
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name).filter((n) => /restore|purge/.test(n))).toEqual([]);
    const restored = await knowledge.admin.restore(ids.s, 'admin@test');
    expect(restored.ok).toBe(true);
    const back = await call(alice, 'get_note', { ref: '[[Хранилище]]' });
    expect(back.content).toContain('Бэкапы каждую ночь.');
    const recent = await call(alice, 'recent_activity', { project: 'acme/docs', limit: 2 });
    expect(recent.items[0]).toMatchObject({
      note: ids.s,
      action: 'restored',
      by: { user: 'admin@test', kind: 'human' },
      path: 'infra/design',
    });
    expect(recent.items[1]).toMatchObject({ note: ids.s, action: 'trashed', by: { user: 'bob@test', kind: 'agent' } });
  });
});
