import { createHash, randomBytes } from 'node:crypto';
import { accept_homework, homeworkOfStudent } from '@studium/contracts';
import { homeworkBucket } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data } from '../../../test/support/clients.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { FileStore } from '../src/file-store.ts';
import { sweepOrphans } from '../src/orphans.ts';
import { call } from './support/call.ts';
import { CURATOR, person, startHomeworkStack } from './support/stack.ts';

let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let anna: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('hw-files');
  stack = await startHomeworkStack(env);
  edge = await startEdge(env);
  anna = await connectAgent('v2', `${edge.url}/mcp`, (await stack.enrollment.admin.issueToken('anna@hw')).token);
}, 30_000);

afterAll(async () => {
  await anna?.close();
  await edge?.close();
  await stack?.close();
  await env?.cleanup();
});

const MB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size - 9)]);
const entry = (name: string, bytes: Buffer) => ({ name, content: bytes.toString('base64') });

/** Objects in the test's homework bucket. */
async function objects(): Promise<number> {
  const os = await env.nc.jetstream().views.os(homeworkBucket(env.prefix));
  return (await os.list()).length;
}

/** Fetches a signed URL from the edge (the path and query; the host is the test's edge). */
function download(url: string) {
  const u = new URL(url);
  return fetch(`${edge.url}${u.pathname}${u.search}`);
}

async function refusedCode(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await anna.callTool('store_homework_file', args);
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: Record<string, unknown> }).error;
}

describe('store_homework_file through the edge and the object store', () => {
  const protocol = pdf(300 * 1024);
  const notes = Buffer.from('Протокол встречи: договорились о ретро раз в две недели.\n');

  it('keeps the files as one new version; the bytes come back identical by digest', async () => {
    const lesson = stack.lesson('l-both');
    await anna.callTool('submit_homework', { lesson, answer: 'Текст ответа', space: 'acme' });
    const stored = data(
      await anna.callTool('store_homework_file', {
        lesson,
        space: 'acme',
        files: [entry('protocol.pdf', protocol), entry('notes.txt', notes)],
      }),
    ) as { space: string; submission: { version: number; answer: string; files: Array<Record<string, unknown>> } };
    expect(stored.space).toBe('acme');
    expect(stored.submission.version).toBe(2);
    expect(stored.submission.answer).toBe('Текст ответа');
    expect(stored.submission.files.map((f) => [f.name, f.type, f.size, f.sha256])).toEqual([
      ['protocol.pdf', 'application/pdf', protocol.length, sha(protocol)],
      ['notes.txt', 'text/plain', notes.length, sha(notes)],
    ]);
    for (const [f, bytes] of [
      [stored.submission.files[0], protocol],
      [stored.submission.files[1], notes],
    ] as const) {
      const res = await download(String(f?.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(String(f?.type));
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
    }
    // A tampered or expired URL opens nothing.
    const url = new URL(String(stored.submission.files[0]?.url));
    url.searchParams.set('name', 'other.pdf');
    expect((await download(url.toString())).status).toBe(403);
    const expired = new URL(String(stored.submission.files[0]?.url));
    expired.searchParams.set('exp', '1000');
    expect((await download(expired.toString())).status).toBe(403);
    expect(await objects()).toBe(2);
  });

  it('adds files to the answer; a 10 MB file is within the limit', async () => {
    const big = pdf(10 * MB);
    const stored = data(
      await anna.callTool('store_homework_file', {
        lesson: stack.lesson('l-both'),
        space: 'acme',
        files: [entry('big.pdf', big)],
      }),
    ) as {
      submission: { version: number; files: Array<Record<string, unknown>>; versions: Array<{ files: unknown[] }> };
    };
    expect(stored.submission.version).toBe(3);
    expect(stored.submission.files.map((f) => f.name)).toEqual(['protocol.pdf', 'notes.txt', 'big.pdf']);
    expect(stored.submission.versions.map((v) => v.files.length)).toEqual([0, 2, 3]);
    const res = await download(String(stored.submission.files[2]?.url));
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(big));
  });

  it('refuses every file problem and keeps no byte of a refused submission', async () => {
    const lesson = stack.lesson('l-files');
    const before = await objects();
    const small = (i: number) => entry(`f${i}.pdf`, pdf(1024));
    expect(await refusedCode({ lesson, files: Array.from({ length: 11 }, (_, i) => small(i)) })).toMatchObject({
      code: 'too_many_files',
      limit: 10,
    });
    expect(await refusedCode({ lesson, files: [entry('huge.pdf', pdf(10 * MB + 1))] })).toMatchObject({
      code: 'file_too_large',
      limit: 10 * MB,
    });
    expect(
      await refusedCode({ lesson, files: Array.from({ length: 4 }, (_, i) => entry(`p${i}.pdf`, pdf(8 * MB))) }),
    ).toMatchObject({ code: 'answer_too_large', limit: 30 * MB });
    expect(
      await refusedCode({ lesson, files: [entry('report.pdf', Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0]))] }),
    ).toMatchObject({
      code: 'file_rejected',
      name: 'report.pdf',
    });
    expect(await refusedCode({ lesson, files: [entry('tool.exe', pdf(1024))] })).toMatchObject({
      code: 'file_rejected',
    });
    expect(await refusedCode({ lesson, files: [] })).toMatchObject({ code: 'file_missing' });
    expect(await refusedCode({ lesson, files: [{ name: 'empty.pdf', content: '' }] })).toMatchObject({
      code: 'file_missing',
    });
    expect(await refusedCode({ lesson, files: 'protocol.pdf' })).toMatchObject({ code: 'invalid_files' });
    expect(await refusedCode({ lesson, files: [{ name: 'a.pdf' }] })).toMatchObject({ code: 'invalid_files' });
    expect(await refusedCode({ lesson, files: [entry(`${'я'.repeat(256)}.pdf`, pdf(1024))] })).toMatchObject({
      code: 'invalid_files',
    });
    expect(await refusedCode({ lesson, files: [{ name: 'a.pdf', content: '%%%' }] })).toMatchObject({
      code: 'invalid_files',
    });
    expect(await refusedCode({ lesson: stack.lesson('l-text'), files: [small(1)] })).toMatchObject({
      code: 'answer_mode',
    });
    expect(await refusedCode({ lesson: stack.lesson('l-none'), files: [small(1)] })).toMatchObject({
      code: 'no_homework',
    });
    expect(await refusedCode({ lesson: 'nope', files: [small(1)] })).toMatchObject({ code: 'lesson_not_found' });
    expect(await refusedCode({ lesson, files: [small(1)], space: 'frozen' })).toMatchObject({
      code: 'organization_suspended',
    });
    expect(await objects()).toBe(before);
    const list = data(await anna.callTool('my_homework', { lesson, space: 'acme' }));
    expect(list.submission).toBeNull();
  });

  it('upload_homework_file gives a client without MCP Apps the text with the lesson link', async () => {
    const opened = data(await anna.callTool('upload_homework_file', { lesson: stack.lesson('l-files') }));
    expect(opened).toMatchObject({ shown: 'text', space: 'acme', lesson: stack.lesson('l-files') });
    expect(String(opened.next)).toContain(String(opened.lesson_url));
    expect(String(opened.lesson_url)).toContain(encodeURIComponent(stack.lesson('l-files')));
  });

  it("opens the files to the student's organization manager and to no one else", async () => {
    const reply = await env.bus.request(homeworkOfStudent, person('mira@hw'), {
      viewer: 'mira@hw',
      student: 'anna@hw',
      space: 'acme',
    });
    if (!reply.ok) throw new Error(reply.error.code);
    const item = reply.data.items.find((i) => i.lesson === stack.lesson('l-both'));
    expect(item?.files.map((f) => f.name)).toEqual(['protocol.pdf', 'notes.txt', 'big.pdf']);
    const res = await download(String(item?.files[1]?.url));
    expect(res.status).toBe(200);
    for (const viewer of ['boris@hw', 'anna@hw']) {
      await expect(
        env.bus.request(homeworkOfStudent, person(viewer), { viewer, student: 'anna@hw', space: 'acme' }),
      ).rejects.toMatchObject({ status: 403 });
    }
    await expect(
      env.bus.request(homeworkOfStudent, person('mira@hw'), {
        viewer: 'mira@hw',
        student: 'anna@hw',
        space: 'personal',
      }),
    ).rejects.toMatchObject({ status: 403 });
    // The viewer is the signed caller: naming the manager while signed in as someone else is a 403,
    // and no principal at all a 401.
    await expect(
      env.bus.request(homeworkOfStudent, person('boris@hw'), { viewer: 'mira@hw', student: 'anna@hw', space: 'acme' }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      env.bus.request(homeworkOfStudent, null, { viewer: 'mira@hw', student: 'anna@hw', space: 'acme' }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('hands in a text with the files as one version (the lesson page), checked before any byte is stored', async () => {
    const lesson = stack.lesson('l-both');
    const before = await objects();
    const stored = data(
      await anna.callTool('store_homework_file', {
        lesson,
        space: 'acme',
        answer: '  Новый текст вместе с файлом  ',
        files: [entry('summary.txt', Buffer.from('Итоги\n'))],
      }),
    ) as {
      submission: {
        version: number;
        answer: string;
        files: Array<{ name: string }>;
        versions: Array<{ answer: string }>;
      };
    };
    expect(stored.submission.version).toBe(4);
    expect(stored.submission.answer).toBe('Новый текст вместе с файлом');
    expect(stored.submission.files.map((f) => f.name)).toEqual(['protocol.pdf', 'notes.txt', 'big.pdf', 'summary.txt']);
    expect(stored.submission.versions).toHaveLength(4);
    expect(stored.submission.versions.at(-1)?.answer).toBe('Новый текст вместе с файлом');
    expect(await objects()).toBe(before + 1);
    // A text the homework does not take, or one over its limit, is refused before the bytes are stored.
    expect(
      await refusedCode({ lesson: stack.lesson('l-files'), answer: 'Текст', files: [entry('a.pdf', pdf(1024))] }),
    ).toMatchObject({ code: 'answer_mode', answer_mode: 'files' });
    expect(
      await refusedCode({ lesson, space: 'acme', answer: 'я'.repeat(20_001), files: [entry('b.pdf', pdf(1024))] }),
    ).toMatchObject({ code: 'answer_too_large', limit: 20_000 });
    expect(await objects()).toBe(before + 1);
    const list = data(await anna.callTool('my_homework', { lesson, space: 'acme' })) as {
      submission: { version: number };
    };
    expect(list.submission.version).toBe(4);
  });

  it('refuses accepted_locked after the curator accepts', async () => {
    const lesson = stack.lesson('l-both');
    const mine = data(await anna.callTool('my_homework', { lesson, space: 'acme' })) as {
      items: Array<{ submission: string }>;
    };
    await call(env, accept_homework, CURATOR, { submission: String(mine.items[0]?.submission) });
    expect(await refusedCode({ lesson, space: 'acme', files: [entry('late.pdf', pdf(1024))] })).toMatchObject({
      code: 'accepted_locked',
    });
  });

  it('sweeps staged objects that no save recorded, and keeps every recorded file', async () => {
    const os = await env.nc.jetstream().views.os(homeworkBucket(env.prefix));
    await os.putBlob({ name: 'orphan-from-a-crash' }, Buffer.from('%PDF-1.7\n'));
    const before = await objects();
    const store = new FileStore(env.nc, env.prefix);
    expect(await sweepOrphans(stack.homework.db, store, 60_000)).toBe(0);
    expect(await sweepOrphans(stack.homework.db, store, 0)).toBe(1);
    expect(await objects()).toBe(before - 1);
    expect((await os.info('orphan-from-a-crash'))?.deleted ?? true).toBe(true);
  });
});
