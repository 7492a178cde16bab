import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatApi } from '../../../test/support/ai-chat.ts';
import { startChatStack } from './support.ts';

// The spec's ask() example («Отправка сообщения»), kept byte for byte in spec-ask.txt (the stored
// spec lost its indentation, nothing else) and run as it is, with only AI_URL bound around it.
const EXAMPLE = readFileSync(new URL('./spec-ask.txt', import.meta.url), 'utf8');
type Ask = (
  message: string,
  threadId: string | null,
  token: string,
  onText: (t: string) => void,
) => Promise<{ threadId?: string; messageId?: string }>;
const bindAsk = (aiUrl: string) => new Function('AI_URL', `${EXAMPLE}\nreturn ask;`)(aiUrl) as Ask;

/** The spec document, where this checkout has it beside the repository (the project's shared folder). */
function specText(): string | null {
  const root = resolve(import.meta.dirname, '../../..');
  for (const dir of [process.env.STUDIUM_SPEC_DIR, resolve(root, '../shared/spec'), '/work/shared/spec']) {
    const file = dir && resolve(dir, '001_0a8a58f1efae6bae.txt');
    if (file && existsSync(file)) return readFileSync(file, 'utf8');
  }
  return null;
}

let stack: Awaited<ReturnType<typeof startChatStack>>;
beforeAll(async () => {
  stack = await startChatStack('ai-chat-spec-example');
});
afterAll(async () => {
  await stack?.close();
});

describe("the spec's ask() example", () => {
  it('is the spec’s code (compared line by line without indentation, where the spec is at hand)', () => {
    const spec = specText();
    const lines = (s: string) => s.split('\n').map((l) => l.trim());
    const example = lines(EXAMPLE.trimEnd());
    expect(example[0]).toBe('async function ask(message, threadId, token, onText) {');
    if (spec === null) return; // a checkout without the shared folder: the run below still holds
    const specLines = lines(spec);
    const at = specLines.indexOf(example[0]);
    expect(specLines.slice(at, at + example.length)).toEqual(example);
  });

  it('asks, prints the answer as it streams, and continues the thread with the returned threadId', async () => {
    const ask = bindAsk(stack.url);
    stack.llm.script({ chunks: ['Начните', ' с пиццы'], delayMs: 5 });
    const printed: string[] = [];
    const first = await ask('Как объяснить дроби пятиклассникам?', null, stack.tokens.teacher, (t) => printed.push(t));
    expect(printed).toEqual(['Начните', ' с пиццы']);
    expect(first.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.messageId).toEqual(expect.any(String));

    stack.llm.script({ chunks: ['Да, ', 'можно.'] });
    const second = await ask('А с тортом?', first.threadId!, stack.tokens.teacher, () => {});
    expect(second.threadId).toBe(first.threadId);
    const messages = await chatApi(
      stack.url,
      stack.tokens.teacher,
      'GET',
      `/v1/ai-chat/threads/${first.threadId}/messages`,
    );
    expect(messages.body.items[0]).toEqual({ id: second.messageId, role: 'assistant', content: 'Да, можно.' });
  });

  it('throws on 401, 404 and 422 before the stream, and on an error event', async () => {
    const ask = bindAsk(stack.url);
    await expect(ask('Привет', null, 'stu_wrong', () => {})).rejects.toThrow('HTTP 401');
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(ask('Привет', missing, stack.tokens.teacher, () => {})).rejects.toThrow('HTTP 404');
    await expect(ask('', null, stack.tokens.teacher, () => {})).rejects.toThrow('HTTP 422');
    stack.llm.script({ status: 500 });
    await expect(ask('Привет', null, stack.tokens.teacher, () => {})).rejects.toThrow('chat reply failed');
  });
});
