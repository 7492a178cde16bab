import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, type ToolResult, text } from './support/clients.ts';
import { startKnowledge } from './support/knowledge.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

// Issue 19, points 19–23: what a line-by-line check of /kb found, each through the edge as an
// agent meets it — the profile with remember_about_user's facts, a delta that says when there is
// more, an alias that stays a taken title, incoming links of live notes only, a recall reply
// within its budget as a whole, numbers refused out of range, no-op writes that write nothing,
// and a folder moved into itself refused by name.
let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let alice: AgentClient;
let bob: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('kb-fidelity');
  enrollment = await startEnrollment(env);
  knowledge = await startKnowledge(env);
  // The shipped 5 s bus deadline: a delta of many changes is a heavy read on a loaded machine.
  edge = await startEdge(env, { REQUEST_TIMEOUT_MS: '5000' });
  const a = enrollment.admin;
  await a.upsertUser('alice@test', 'Алия', ['Student']);
  await a.upsertOrganization('acme', 'Акме');
  await a.addMember('acme', 'alice@test', 'member');
  await a.upsertUser('bob@test', 'Бауыржан', ['Student']);
  await a.addMember('acme', 'bob@test', 'member');
  for (const [slug, title] of [
    ['bulk', 'Көп өзгеріс'],
    ['wiki', 'Вики'],
    ['ops', 'Операциялар'],
  ])
    await knowledge.admin.createProject('acme', slug, title);
  alice = await connectAgent('v2', `${edge.url}/kb`, (await a.issueToken('alice@test')).token);
  bob = await connectAgent('v2', `${edge.url}/kb`, (await a.issueToken('bob@test')).token);
});

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await edge?.close();
  await knowledge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

// biome-ignore lint/suspicious/noExplicitAny: tool replies are checked field by field
type Json = Record<string, any>;

async function call(name: string, args: Record<string, unknown> = {}) {
  return data(await alice.callTool(name, args)) as Json;
}

async function refusal(name: string, args: Record<string, unknown>) {
  const r: ToolResult = await alice.callTool(name, args);
  expect(r.isError, text(r)).toBe(true);
  return (r.structuredContent as { error: Json }).error;
}

/** Revisions and activity rows of a note: what a write leaves behind. */
async function traces(note: string) {
  const count = async (table: 'note_revisions' | 'activity') =>
    Number(
      (
        await knowledge.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('note', '=', note)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { revisions: await count('note_revisions'), activity: await count('activity') };
}

describe('start_session (points 19, 20)', () => {
  it('the profile carries what remember_about_user stored', async () => {
    await call('remember_about_user', { observation: 'Қысқа жауаптарды ұнатады', category: 'preferences' });
    await call('remember_about_user', { observation: 'Алматыда тұрады', category: 'context' });
    const s = await call('start_session');
    expect(s.profile.memory).toEqual([
      expect.objectContaining({ category: 'context', content: expect.stringContaining('Алматыда тұрады') }),
      expect.objectContaining({
        category: 'preferences',
        content: expect.stringContaining('Қысқа жауаптарды ұнатады'),
      }),
    ]);
  });

  it('a delta of more than 50 changes says how many there are and where the rest are', async () => {
    expect((await call('start_session', { project: 'acme/bulk' })).delta).toMatchObject({ total: 0, more: false });
    // Another member's 55 changes: the delta starts at alice's own last change (none yet: a week back).
    const notes = Array.from({ length: 55 }, (_, i) => ({ body: `# Өзгеріс ${i + 1}\n\nМәтін.` }));
    const made = data(await bob.callTool('create_notes', { project: 'acme/bulk', notes })) as Json;
    expect(made.results.every((r: Json) => r.ok)).toBe(true);
    const s = await call('start_session', { project: 'acme/bulk' });
    expect(s.delta.changes).toHaveLength(50);
    expect(s.delta).toMatchObject({ total: 55, more: true });
    expect(s.delta.rest).toContain('recent_activity');
    // start_session writes nothing: the same state gives the same delta.
    expect((await call('start_session', { project: 'acme/bulk' })).delta).toMatchObject({ total: 55, more: true });
    // Once alice writes here herself, the delta starts after her change.
    await call('create_note', { project: 'acme/bulk', body: '# Алияның жазбасы\n\nМәтін.' });
    const quiet = await call('start_session', { project: 'acme/bulk' });
    expect(quiet.delta).toMatchObject({ changes: [], total: 0, more: false });
    expect(quiet.delta.rest).toBeUndefined();
  });
});

describe('rename_note: an alias is a taken title (point 21)', () => {
  it('a new note cannot take the old title, and [[Old title]] keeps opening the renamed note', async () => {
    const old = await call('create_note', { project: 'acme/wiki', body: '# Ескі атау\n\nАлғашқы мәтін.' });
    const linking = await call('create_note', { project: 'acme/wiki', body: '# Сілтеуші\n\nҚараңыз: [[Ескі атау]].' });
    await call('rename_note', { id: old.id, title: 'Жаңа атау' });
    const taken = await refusal('create_note', { project: 'acme/wiki', body: '# Ескі атау\n\nБасқа жазба.' });
    expect(taken).toMatchObject({ code: 'titleTaken', title: 'Ескі атау', id: old.id, alias: true });
    expect(taken.message).toContain('alias');
    // Neither by a rename nor by a changed H1.
    const other = await call('create_note', { project: 'acme/wiki', body: '# Үшінші\n\nМәтін.' });
    expect(await refusal('rename_note', { id: other.id, title: 'Ескі атау' })).toMatchObject({
      code: 'titleTaken',
      id: old.id,
      alias: true,
    });
    expect((await call('get_note', { ref: '[[Ескі атау]]', project: 'acme/wiki' })).id).toBe(old.id);
    // A later edit of the linking note rebuilds its links: [[Ескі атау]] still points to the renamed note.
    const got = await call('get_note', { ref: linking.id });
    await call('edit_note', {
      id: linking.id,
      versionToken: got.versionToken,
      mode: 'append',
      content: 'Тағы бір жол.',
    });
    const after = await call('get_note', { ref: linking.id, detailed: true });
    expect(after.links.outgoing).toEqual([
      expect.objectContaining({ toTitle: 'Ескі атау', to: old.id, resolved: true }),
    ]);
    // The renamed note may take its old title back.
    expect((await call('rename_note', { id: old.id, title: 'Ескі атау' })).title).toBe('Ескі атау');
  });
});

describe('get_note detailed (point 22)', () => {
  it('a trashed note is no longer among the incoming links', async () => {
    const target = await call('create_note', { project: 'acme/wiki', body: '# Нысана\n\nМәтін.' });
    const live = await call('create_note', { project: 'acme/wiki', body: '# Тірі\n\n[[Нысана]] туралы.' });
    const gone = await call('create_note', { project: 'acme/wiki', body: '# Жойылатын\n\n[[Нысана]] туралы.' });
    const before = await call('get_note', { ref: target.id, detailed: true });
    expect(before.links.incoming.map((l: Json) => l.from).sort()).toEqual([live.id, gone.id].sort());
    await call('delete_note', { id: gone.id });
    const after = await call('get_note', { ref: target.id, detailed: true });
    expect(after.links.incoming.map((l: Json) => l.from)).toEqual([live.id]);
  });
});

describe('recall and the numbers (point 23)', () => {
  it('the whole reply stays within budgetTokens, envelope included', async () => {
    const filler = 'Жоспарлау кездесуі туралы ескертпе және келісімдер тізімі. '.repeat(40);
    for (let i = 1; i <= 4; i++)
      await call('create_note', { project: 'acme/ops', body: `# Кездесу ${i}\n\nкварталдық жоспарлау ${filler}` });
    for (const budget of [100, 150, 300, 1000]) {
      const r = await alice.callTool('recall', {
        topic: 'кварталдық жоспарлау',
        project: 'acme/ops',
        budgetTokens: budget,
      });
      const reply = data(r) as Json;
      const sent = Math.ceil(text(r).length / 4);
      expect(sent, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(reply.usedTokens).toBeGreaterThanOrEqual(sent);
      expect(reply.usedTokens).toBeLessThanOrEqual(budget);
      if (budget >= 300) expect(reply.items.length).toBeGreaterThan(0);
    }
  });

  it('numbers out of range are refused, naming the field and the range', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['recall', { topic: 'жоспар', budgetTokens: 50 }, 'budgetTokens', '100–32000'],
      ['recall', { topic: 'жоспар', budgetTokens: 1_000_000 }, 'budgetTokens', '100–32000'],
      ['recall', { topic: 'жоспар', depth: 9 }, 'depth', '0–3'],
      ['search', { query: 'жоспар', limit: 500 }, 'limit', '1–50'],
      ['recent_activity', { limit: 0 }, 'limit', '1–100'],
      ['list_notes', { project: 'acme/ops', limit: 1000 }, 'limit', '1–200'],
    ];
    for (const [tool, args, field, range] of cases) {
      const error = await refusal(tool, args);
      expect(error.code, tool).toBe('invalid_arguments');
      expect(error.fields).toEqual([{ field, problem: expect.stringContaining(range) }]);
    }
  });

  it('a move or rename to the same place and an empty append write no revision and no activity', async () => {
    const n = await call('create_note', { project: 'acme/ops', body: '# Орнында\n\nМәтін.', path: 'notes' });
    const start = await traces(n.id);
    const token = (await call('get_note', { ref: n.id })).versionToken;
    expect(await call('move_note', { id: n.id, path: 'notes' })).toMatchObject({
      unchanged: true,
      versionToken: token,
    });
    expect(await call('rename_note', { id: n.id, title: 'Орнында' })).toMatchObject({ unchanged: true });
    for (const content of ['', '   \n']) {
      for (const mode of ['append', 'prepend']) {
        expect(await call('edit_note', { id: n.id, versionToken: token, mode, content })).toMatchObject({
          unchanged: true,
          versionToken: token,
        });
      }
    }
    // A folder moved to its own parent or renamed to its own name moves nothing either.
    expect(await call('move_folder', { project: 'acme/ops', path: 'notes', newParent: '' })).toMatchObject({
      moved: 0,
    });
    expect(await call('rename_folder', { project: 'acme/ops', path: 'notes', name: 'notes' })).toMatchObject({
      moved: 0,
    });
    expect(await traces(n.id)).toEqual(start);
    // A real move still writes both.
    expect((await call('move_note', { id: n.id, path: 'archive' })).unchanged).toBeUndefined();
    expect(await traces(n.id)).toEqual({ revisions: start.revisions + 1, activity: start.activity + 1 });
  });

  it('moving a folder into itself is refused with what is wrong', async () => {
    await call('create_note', { project: 'acme/ops', body: '# Қалтадағы\n\nМәтін.', path: 'guide/inner' });
    for (const newParent of ['guide', 'guide/inner']) {
      const error = await refusal('move_folder', { project: 'acme/ops', path: 'guide', newParent });
      expect(error).toMatchObject({ code: 'folderIntoItself', path: 'guide', newParent });
      expect(error.message).toContain('өз ішіне');
    }
  });
});
