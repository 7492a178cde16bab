import { describe, expect, it } from 'vitest';
import { dataResult, failureResult, refusalResult } from '../src/render.ts';
import { encodeReply } from '../src/reply-json.ts';

const tricky = {
  space: 'personal',
  courses: [
    { course: 'c-1', title: 'Курс "в кавычках" \\ с обратной чертой', upcoming: false },
    { course: 'c-2', title: 'строки\nи\tтабы\u0001\u001f', summary: '\u2028\u2029 😀 \ud800 одиночный суррогат' },
    { course: '\u0000studium:data', title: '"\u0000studium:data"', nested: { deep: [1, 2.5, -0, null, true] } },
  ],
};

const reply = (result: unknown, id: string | number = 7) => ({ jsonrpc: '2.0' as const, id, result });
const bytes = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

describe('encodeReply', () => {
  it('gives exactly JSON.stringify of a data reply, with data serialized once', () => {
    const message = reply(dataResult(tricky));
    const chunks = encodeReply(message as never);
    expect(chunks.length).toBe(3);
    expect(bytes(chunks)).toBe(JSON.stringify(message));
    const parsed = JSON.parse(bytes(chunks));
    expect(parsed.result.structuredContent).toEqual({ ok: true, data: JSON.parse(JSON.stringify(tricky)) });
    expect(JSON.parse(parsed.result.content[0].text)).toEqual(parsed.result.structuredContent.data);
  });

  it('is not fooled by a request id that looks like its placeholder', () => {
    const message = reply(dataResult(tricky), '\u0000studium:data');
    expect(bytes(encodeReply(message as never))).toBe(JSON.stringify(message));
  });

  it('serializes refusals, failures and errors as they are', () => {
    const refusal = reply(refusalResult({ code: 'not_found', message: 'Нет такого "курса"' }));
    const failure = reply(failureResult(503));
    const error = { jsonrpc: '2.0' as const, id: 1, error: { code: -32602, message: 'bad' } };
    const copied = reply({ ...dataResult(tricky), structuredContent: { ok: true, data: { other: 1 } } });
    for (const m of [refusal, failure, error, copied]) expect(bytes(encodeReply(m as never))).toBe(JSON.stringify(m));
  });
});
