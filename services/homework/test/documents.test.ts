import { artifact, events, fill_document, LIMITS, update_artifact } from '@studium/contracts';
import { streamNames } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, refusal } from './support/call.ts';
import { person, startHomeworkStack } from './support/stack.ts';

let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
const anna = person('anna@hw');
const boris = person('boris@hw');

beforeAll(async () => {
  env = await createTestEnv('hw-documents');
  stack = await startHomeworkStack(env);
}, 30_000);

afterAll(async () => {
  await stack?.close();
  await env?.cleanup();
});

const write = (args: Record<string, unknown>, space = 'acme') =>
  call(env, update_artifact, anna, { course: stack.course, artifact: 'agreements_log', space, ...args } as never);
const refused = (args: Record<string, unknown>, code: string, space = 'acme') =>
  refusal(
    env,
    update_artifact,
    anna,
    { course: stack.course, artifact: 'agreements_log', space, ...args } as never,
    code,
  );

describe('artifact and update_artifact', () => {
  it('lists the course documents with how many sections are filled', async () => {
    const list = await call(env, artifact, anna, { course: stack.course });
    expect(list).toMatchObject({
      space: 'acme',
      course: stack.course,
      artifacts: [{ key: 'agreements_log', title: 'Журнал договорённостей', blocks_total: 2, blocks_filled: 0 }],
    });
  });

  it('adds rows with ids A1, A2…, never reused after a delete', async () => {
    const first = await write({
      key: 'AGREEMENTS',
      rows: [{ topic: 'Ретро раз в две недели' }, { topic: '  Дейли в 10  ' }],
    });
    expect(first).toMatchObject({ key: 'agreements', created: ['A1', 'A2'], filled: true, empty_cells: [] });
    const del = await write({ key: 'agreements', delete_rows: ['A2'] });
    expect(del.created).toEqual([]);
    const third = await write({ key: 'agreements', rows: [{ topic: 'Ревью по пятницам' }] });
    expect(third.created).toEqual(['A3']);
    const doc = await call(env, artifact, anna, { course: stack.course, artifact: 'agreements_log' });
    const block = doc.artifact?.blocks[0];
    expect(block?.items).toEqual([
      { id: 'A1', topic: 'Ретро раз в две недели' },
      { id: 'A3', topic: 'Ревью по пятницам' },
    ]);
    expect(block?.lesson).toBe(stack.lesson('l-text'));
  });

  it('requires an if_column cell when its column is filled; «уточнить у …» counts as filled', async () => {
    const r = await write({ key: 'agreements', rows: [{ id: 'a1', driver: 'Аня' }] });
    expect(r).toMatchObject({ filled: false, empty_cells: [{ row: 'A1', column: 'area' }] });
    const fixed = await write({ key: 'agreements', rows: [{ id: 'A1', area: 'уточнить у Ани, 12.03' }] });
    expect(fixed).toMatchObject({ filled: true, empty_cells: [] });
    // Only the named cells change.
    const doc = await call(env, artifact, anna, { course: stack.course, artifact: 'agreements_log' });
    expect(doc.artifact?.blocks[0]?.items?.[0]).toEqual({
      id: 'A1',
      topic: 'Ретро раз в две недели',
      driver: 'Аня',
      area: 'уточнить у Ани, 12.03',
    });
  });

  it('fills a one section by fields; an empty value erases a field; clear empties the section', async () => {
    const partial = await write({ key: 'team', fields: { size: 7 } });
    expect(partial).toMatchObject({
      filled: false,
      empty_cells: [{ field: 'lead' }, { field: 'split' }],
    });
    const full = await write({ key: 'team', fields: { lead: 'Олег', split: 'две группы' } });
    expect(full).toMatchObject({ filled: true, blocks_filled: 2, blocks_total: 2 });
    const erased = await write({ key: 'team', fields: { size: '', split: '' } });
    expect(erased).toMatchObject({ filled: true, empty_cells: [] });
    const cleared = await write({ key: 'team', clear: true });
    expect(cleared).toMatchObject({ filled: false, blocks_filled: 1, empty_cells: [{ field: 'lead' }] });
  });

  it('refuses every malformed write and changes nothing', async () => {
    const before = await call(env, artifact, anna, { course: stack.course, artifact: 'agreements_log' });
    expect((await refused({ key: 'agreements' }, 'artifact_nothing_to_write')).code).toBe('artifact_nothing_to_write');
    await refused({ key: 'agreements', clear: true, rows: [{ topic: 'x' }] }, 'artifact_clear_with_content');
    expect(await refused({ key: 'team', rows: [{ lead: 'x' }] }, 'artifact_wrong_section')).toMatchObject({
      rows: 'one',
    });
    expect(await refused({ key: 'agreements', fields: { topic: 'x' } }, 'artifact_wrong_section')).toMatchObject({
      rows: 'many',
    });
    expect(await refused({ key: 'agreements', rows: [{ topik: 'x' }] }, 'artifact_unknown_column')).toMatchObject({
      columns: ['topic', 'driver', 'area'],
    });
    expect(await refused({ key: 'team', fields: { boss: 'x' } }, 'artifact_unknown_field')).toMatchObject({
      fields: ['lead', 'size', 'split'],
    });
    await refused({ key: 'agreements', rows: [{ id: 'A2', topic: 'x' }] }, 'artifact_unknown_row');
    await refused({ key: 'agreements', delete_rows: ['A9'] }, 'artifact_unknown_row');
    expect(
      await refused({ key: 'agreements', rows: [{ topic: 'я'.repeat(LIMITS.cell + 1) }] }, 'artifact_invalid_value'),
    ).toMatchObject({ column: 'topic', max: 4000, length: 4001 });
    expect(await refused({ key: 'agreements', rows: [{ topic: { a: 1 } }] }, 'artifact_invalid_value')).toMatchObject({
      column: 'topic',
      max: 4000,
    });
    expect(await refused({ key: 'agreements', rows: 'A1' }, 'artifact_invalid_value')).toMatchObject({ param: 'rows' });
    expect(await refused({ key: 'team', fields: ['x'] }, 'artifact_invalid_value')).toMatchObject({ param: 'fields' });
    const many = Array.from({ length: 40 }, (_, i) => ({ topic: `Строка ${i}` }));
    expect(await refused({ key: 'agreements', rows: many }, 'artifact_too_many_rows')).toMatchObject({ limit: 30 });
    expect(await refused({ key: 'nope', clear: true }, 'artifact_block_not_found')).toMatchObject({
      blocks: ['agreements', 'team'],
    });
    await refusal(
      env,
      update_artifact,
      anna,
      { course: stack.course, artifact: 'nope', key: 'x', clear: true },
      'artifact_not_found',
    );
    const after = await call(env, artifact, anna, { course: stack.course, artifact: 'agreements_log' });
    expect(after).toEqual(before);
    // A cell of exactly 4000 characters is fine.
    expect((await write({ key: 'agreements', rows: [{ id: 'A3', topic: 'я'.repeat(LIMITS.cell) }] })).filled).toBe(
      true,
    );
  });

  it('keeps one document per space: the personal one is separate and empty', async () => {
    const personal = await call(env, artifact, anna, {
      course: stack.course,
      artifact: 'agreements_log',
      space: 'personal',
    });
    expect(personal.space).toBe('personal');
    expect(personal.artifact?.blocks.map((b) => b.filled)).toEqual([false, false]);
    await write({ key: 'agreements', rows: [{ topic: 'Личная договорённость' }] }, 'personal');
    const again = await call(env, artifact, anna, {
      course: stack.course,
      artifact: 'agreements_log',
      space: 'personal',
    });
    expect(again.artifact?.blocks[0]?.items).toEqual([{ id: 'A1', topic: 'Личная договорённость' }]);
    const org = await call(env, artifact, anna, { course: stack.course, artifact: 'agreements_log', space: 'acme' });
    expect(org.artifact?.blocks[0]?.items?.map((i) => i.id)).toEqual(['A1', 'A3']);
  });

  it("tells reporting each space's document separately (homework.document_updated)", async () => {
    await stack.homework.app.flush();
    const jsm = await (await env.as('operator')).jetstreamManager();
    const names = streamNames(env.prefix);
    const subject = names.subject(events['homework.document_updated'].subject);
    const { state } = await jsm.streams.info(names.stream);
    const latest = new Map<string, { blocks_filled: number; organization: string | null }>();
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(names.stream, { seq }).catch(() => null);
      if (m?.subject !== subject) continue;
      const e = m.json<{ data: { space: string; blocks_filled: number; organization: string | null } }>().data;
      latest.set(e.space, e);
    }
    expect(latest.get('acme')).toMatchObject({ organization: 'acme', blocks_filled: 1 });
    expect(latest.get('personal')).toMatchObject({ organization: null, blocks_filled: 1 });
  });

  it('fill_document answers like artifact, with the rules, in the selected space by default', async () => {
    const filled = await call(env, fill_document, person('anna@hw', ['Student'], 'personal'), {
      course: stack.course,
      artifact: 'agreements_log',
    });
    expect(filled.space).toBe('personal');
    expect(filled.rules).toContain('update_artifact');
    await refusal(env, fill_document, anna, { course: stack.course, artifact: 'nope' }, 'artifact_not_found');
  });

  it('refuses the access refusals of the course', async () => {
    await refusal(env, artifact, boris, { course: stack.course }, 'not_enrolled');
    await refusal(
      env,
      update_artifact,
      boris,
      { course: stack.course, artifact: 'agreements_log', key: 'team', clear: true },
      'not_enrolled',
    );
    await refusal(env, artifact, anna, { course: stack.course, space: 'frozen' }, 'organization_suspended');
    await refusal(
      env,
      update_artifact,
      anna,
      { course: stack.course, artifact: 'agreements_log', key: 'team', clear: true, space: 'frozen' },
      'organization_suspended',
    );
    await refusal(env, fill_document, anna, { course: stack.course, space: 'nowhere' }, 'space_not_available');
  });

  it('refuses a write that would make the document too large for one bus message', async () => {
    const long = (i: number) => ({
      topic: `${i}${'я'.repeat(3990)}`,
      driver: 'я'.repeat(4000),
      area: 'я'.repeat(4000),
    });
    await write({ key: 'agreements', rows: Array.from({ length: 14 }, (_, i) => long(i)) }, 'personal');
    expect(
      await refused(
        { key: 'agreements', rows: Array.from({ length: 14 }, (_, i) => long(i)) },
        'artifact_too_many_rows',
        'personal',
      ),
    ).toMatchObject({ limit_bytes: 512 * 1024 });
    const doc = await call(env, artifact, anna, {
      course: stack.course,
      artifact: 'agreements_log',
      space: 'personal',
    });
    expect(doc.artifact?.blocks[0]?.items).toHaveLength(15);
  });
});
