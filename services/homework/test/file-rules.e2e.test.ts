import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LIMITS, phraseFor } from '@studium/contracts';
import { homeworkBucket } from '@studium/platform';
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data, text } from '../../../test/support/clients.ts';
import { startEdge } from '../../../test/support/stack.ts';
import { startHomeworkStack } from './support/stack.ts';

// Issue 17, files: everything store_homework_file can refuse is checked before the first byte is
// stored (caller, rate limit, count, sizes, type by content, the student's quota); the type is the
// content's, not the name's; downloads are always attachments with a safe type.
let env: TestEnv;
let stack: Awaited<ReturnType<typeof startHomeworkStack>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let anna: AgentClient;
let token: string;

beforeAll(async () => {
  env = await createTestEnv('hw-file-rules');
  stack = await startHomeworkStack(env);
  edge = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '0' });
  token = (await stack.enrollment.admin.issueToken('anna@hw')).token;
  anna = await connectAgent('v2', `${edge.url}/mcp`, token);
}, 30_000);

afterAll(async () => {
  await anna?.close();
  await edge?.close();
  await stack?.close();
  await env?.cleanup();
});

const MB = 1024 * 1024;
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size - 9)]);
const entry = (name: string, bytes: Buffer | string) => ({
  name,
  content: (typeof bytes === 'string' ? Buffer.from(bytes) : bytes).toString('base64'),
});

async function objects(): Promise<number> {
  const os = await env.nc.jetstream().views.os(homeworkBucket(env.prefix));
  return (await os.list()).filter((o) => !o.deleted).length;
}

function refusal(result: Awaited<ReturnType<AgentClient['callTool']>>) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: Record<string, unknown> }).error;
}

describe('file type by content', () => {
  it('refuses HTML saved as .txt and SVG saved as .md; takes plain text that mentions a tag', async () => {
    const lesson = stack.lesson('l-files');
    const before = await objects();
    for (const [name, body] of [
      ['notes.txt', '<!DOCTYPE html><html><body><script>alert(1)</script></body></html>'],
      ['notes.txt', '\n  <html><script>fetch("/x")</script>'],
      ['diagram.md', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'],
      ['data.md', '<?xml version="1.0"?><svg></svg>'],
    ] as const) {
      const error = refusal(await anna.callTool('store_homework_file', { lesson, files: [entry(name, body)] }));
      expect(error).toMatchObject({ code: 'file_rejected', name });
    }
    expect(await objects()).toBe(before);
    const ok = data(
      await anna.callTool('store_homework_file', {
        lesson,
        files: [entry('plan.md', '# План\n\nСравнить 3 < 5 и a<b в таблице.\n')],
      }),
    ) as { submission: { files: Array<{ type: string; url: string }> } };
    expect(ok.submission.files[0]?.type).toBe('text/plain');
  });
});

describe('downloads', () => {
  it('are attachments with nosniff, no scripts and a safe type', async () => {
    const stored = data(
      await anna.callTool('store_homework_file', {
        lesson: stack.lesson('l-both'),
        files: [entry('report.pdf', pdf(2048)), entry('notes.txt', 'Итоги встречи\n')],
      }),
    ) as { submission: { files: Array<{ name: string; url: string }> } };
    for (const f of stored.submission.files) {
      const u = new URL(f.url);
      const res = await fetch(`${edge.url}${u.pathname}${u.search}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename\*=UTF-8''/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
      expect(res.headers.get('content-type')).toBe(
        f.name.endsWith('.pdf') ? 'application/pdf' : 'text/plain; charset=utf-8',
      );
    }
  });
});

describe('checked before a byte is stored', () => {
  it('a huge list of entries is too_many_files, not the outage phrase, and stores nothing', async () => {
    const before = await objects();
    const files = Array.from({ length: 3000 }, (_, i) => entry(`f${i}.pdf`, pdf(64)));
    const error = refusal(await anna.callTool('store_homework_file', { lesson: stack.lesson('l-files'), files }));
    expect(error).toMatchObject({ code: 'too_many_files', offered: 3000, limit: LIMITS.homeworkFiles });
    expect(await objects()).toBe(before);
  });

  it('a rate-limited student stores nothing', async () => {
    const limited = await startEdge(env, { RATE_LIMIT_PER_MINUTE: '3' });
    const agent = await connectAgent('v2', `${limited.url}/mcp`, token);
    try {
      for (let i = 0; i < 3; i++) await agent.callTool('whoami', {});
      const before = await objects();
      const result = await agent.callTool('store_homework_file', {
        lesson: stack.lesson('l-files'),
        files: [entry('big.pdf', pdf(5 * MB))],
      });
      expect(text(result)).toContain(phraseFor(429));
      expect(refusal(result)).toMatchObject({ code: 'rate_limited' });
      expect(await objects()).toBe(before);
    } finally {
      await agent.close();
      await limited.close();
    }
  });

  it('past the student’s quota the files are answer_too_large and nothing is stored', async () => {
    const lesson = stack.lesson('l-files');
    const row = await stack.homework.db
      .selectFrom('submissions')
      .select(['id'])
      .where('user_id', '=', 'anna@hw')
      .where('lesson', '=', lesson)
      .executeTakeFirstOrThrow();
    // Earlier answers of the student fill the quota but for 1 MB.
    const used = await stack.homework.db
      .selectFrom('files')
      .innerJoin('submissions', 'submissions.id', 'files.submission')
      .select((eb) => eb.fn.sum<string>('files.size').as('bytes'))
      .where('submissions.user_id', '=', 'anna@hw')
      .executeTakeFirstOrThrow();
    await stack.homework.db
      .insertInto('files')
      .values({
        id: randomUUID(),
        submission: row.id,
        object: `quota-filler-${randomUUID()}`,
        name: 'old.pdf',
        type: 'application/pdf',
        size: LIMITS.homeworkQuotaBytes - Number(used.bytes) - MB,
        sha256: '0'.repeat(64),
      })
      .execute();
    const before = await objects();
    const error = refusal(
      await anna.callTool('store_homework_file', { lesson, files: [entry('more.pdf', pdf(2 * MB))] }),
    );
    expect(error).toMatchObject({ code: 'answer_too_large', quota: LIMITS.homeworkQuotaBytes });
    expect(await objects()).toBe(before);
    // What still fits is taken.
    data(await anna.callTool('store_homework_file', { lesson, files: [entry('small.pdf', pdf(MB / 2))] }));
  });
});

describe('file names', () => {
  type Stored = { submission: { files: Array<{ name: string; url: string }> } };

  it('are kept without control and bidi characters: CR/LF become a space, a right-to-left override is removed', async () => {
    const lesson = stack.lesson('l-files');
    const stored = data(
      await anna.callTool('store_homework_file', {
        lesson,
        files: [
          entry('протокол\r\nвстречи.txt', 'Протокол\n'),
          // Reads «отчётtxt.exe» with the override; the platform shows what it is.
          entry('отчёт\u202Eexe.txt', 'Отчёт\n'),
          entry('\u200Bплан\t\tнеделя\u2066.md', '# План\n'),
        ],
      }),
    ) as Stored;
    const names = stored.submission.files.map((f) => f.name).slice(-3);
    expect(names).toEqual(['протокол встречи.txt', 'отчётexe.txt', 'план неделя.md']);
    const rows = await stack.homework.database.pool.query('select name from homework.files');
    const unsafe = (c: number) =>
      c < 0x20 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200b;
    for (const { name } of rows.rows)
      expect([...(name as string)].filter((ch) => unsafe(ch.codePointAt(0) ?? 0))).toEqual([]);
    // The download names the cleaned name too.
    const u = new URL(stored.submission.files.at(-2)?.url as string);
    const res = await fetch(`${edge.url}${u.pathname}${u.search}`);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename*=UTF-8''${encodeURIComponent('отчётexe.txt')}`,
    );
  });

  it('a name of nothing but control and bidi characters is invalid_files, and nothing is stored', async () => {
    const before = await objects();
    for (const name of ['\u202E\r\n', '\u200B\u2066\u2069', '\t \n']) {
      const error = refusal(
        await anna.callTool('store_homework_file', {
          lesson: stack.lesson('l-files'),
          files: [entry('ok.txt', 'x\n'), entry(name, 'y\n')],
        }),
      );
      expect(error.code, JSON.stringify(name)).toBe('invalid_files');
    }
    expect(await objects()).toBe(before);
  });

  it('names stored before are cleaned by the migration', async () => {
    const pool = stack.homework.database.pool;
    const row = (await pool.query('select id from homework.files limit 1')).rows[0] as { id: string };
    await pool.query('update homework.files set name = $2 where id = $1', [row.id, ' счёт\u202Efdp.exe\r\n  копия ']);
    const sql = readFileSync(new URL('../migrations/0003_clean_file_names.sql', import.meta.url), 'utf8');
    await pool.query(`set search_path to homework; ${sql}`);
    const after = await pool.query('select name from homework.files where id = $1', [row.id]);
    expect(after.rows[0].name).toBe('счётfdp.exe копия');
  });
});
