import { describe, expect, it } from 'vitest';
import { dataResult, failureResult, refusalResult } from '../src/mcp/render.ts';
import { encodeReply } from '../src/mcp/reply-json.ts';

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
  it('gives exactly JSON.stringify of a data reply, with data and text content spliced in', () => {
    const message = reply(dataResult(tricky));
    const chunks = encodeReply(message as never);
    expect(chunks.length).toBe(5);
    expect(bytes(chunks)).toBe(JSON.stringify(message));
    const parsed = JSON.parse(bytes(chunks));
    expect(parsed.result.structuredContent).toEqual({ ok: true, data: JSON.parse(JSON.stringify(tricky)) });
    expect(JSON.parse(parsed.result.content[0].text)).toEqual(parsed.result.structuredContent.data);
  });

  it('serializes a data object once: a kept reply brings the same object, and its bytes, back', () => {
    const data = structuredClone(tricky);
    const [r1, r2] = [dataResult(data), dataResult(data)];
    expect(r2.content[0].text).toBe(r1.content[0].text);
    const [first, second] = [reply(r1, 1), reply(r2, 2)];
    const [a, b] = [encodeReply(first as never), encodeReply(second as never)];
    expect(b[1]).toBe(a[1]);
    expect(b[3]).toBe(a[3]);
    expect(bytes(b)).toBe(JSON.stringify(second));
  });

  it('finds the serialized data through a copied envelope, as the SDK re-parses results on the way out', () => {
    const result = dataResult(structuredClone(tricky));
    const message = reply({ content: [{ ...result.content[0] }], structuredContent: { ...result.structuredContent } });
    const chunks = encodeReply(message as never);
    expect(chunks.length).toBe(5);
    expect(bytes(chunks)).toBe(JSON.stringify(message));
  });

  it('falls back to plain JSON when the text content is not the one made for the data', () => {
    const result = dataResult(structuredClone(tricky));
    const message = reply({ ...result, content: [{ type: 'text', text: 'другой текст' }] });
    const chunks = encodeReply(message as never);
    expect(chunks.length).toBe(1);
    expect(bytes(chunks)).toBe(JSON.stringify(message));
  });

  it('is not fooled by a request id that looks like its placeholder', () => {
    for (const id of ['\u0000studium:data', '\u0000studium:text']) {
      const message = reply(dataResult(tricky), id);
      expect(bytes(encodeReply(message as never))).toBe(JSON.stringify(message));
    }
  });

  it('serializes refusals, failures and errors as they are', () => {
    const refusal = reply(refusalResult({ code: 'not_found', message: 'Нет такого "курса"' }));
    const failure = reply(failureResult(503));
    const error = { jsonrpc: '2.0' as const, id: 1, error: { code: -32602, message: 'bad' } };
    const copied = reply({ ...dataResult(tricky), structuredContent: { ok: true, data: { other: 1 } } });
    for (const m of [refusal, failure, error, copied]) expect(bytes(encodeReply(m as never))).toBe(JSON.stringify(m));
  });
});
