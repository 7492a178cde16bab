import { eventually } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../../test/support/ai-chat.ts';
import { userLabel } from '../src/metrics.ts';
import { PEOPLE, startChatStack } from './support.ts';

let stack: Awaited<ReturnType<typeof startChatStack>>;
beforeAll(async () => {
  stack = await startChatStack('ai-chat-metrics');
});
afterAll(async () => {
  await stack?.close();
});

/** The value of one sample of a Prometheus text exposition, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('chat metrics', () => {
  it('counts tokens in and out per teacher and model, as the provider reports them', async () => {
    stack.llm.script({ chunks: ['Раз', ' два'], usage: { prompt: 120, completion: 7 } });
    await sendMessage(stack.url, stack.tokens.teacher, { message: 'Вопрос', thread_id: null });
    stack.llm.script({ chunks: ['Три'], usage: { prompt: 30, completion: 2 } });
    await sendMessage(stack.url, stack.tokens.teacher, { message: 'Ещё', thread_id: null });
    await sendMessage(stack.url, stack.tokens.other, { message: 'Чужой', thread_id: null });
    const text = await stack.chat.app.registry.metrics();
    const teacher = { user: userLabel(PEOPLE.teacher.id), model: 'scripted-model' };
    expect(sample(text, 'studium_ai_chat_tokens_total', { ...teacher, direction: 'in' })).toBe(150);
    expect(sample(text, 'studium_ai_chat_tokens_total', { ...teacher, direction: 'out' })).toBe(9);
    expect(sample(text, 'studium_ai_chat_tokens_total', { user: userLabel(PEOPLE.other.id), direction: 'out' })).toBe(
      2,
    );
    // No e-mail reaches the metrics.
    expect(text).not.toContain('@school.test');
    expect(sample(text, 'studium_ai_chat_answers_total', { model: 'scripted-model', outcome: 'done' })).toBe(3);
    expect(sample(text, 'studium_ai_chat_provider_first_token_seconds_count', { model: 'scripted-model' })).toBe(3);
    await eventually(async () =>
      expect(sample(await stack.chat.app.registry.metrics(), 'studium_ai_chat_answers_in_progress')).toBe(0),
    );
  });

  it("measures the platform's time to first token at the edge apart from the provider's", async () => {
    // The provider takes 300 ms to its first token; the platform's own share is what the edge adds.
    stack.llm.script({ chunks: ['Думал', ' долго'], firstDelayMs: 300 });
    await sendMessage(stack.url, stack.tokens.teacher, { message: 'Медленный', thread_id: null });
    const edge = await (await fetch(`${stack.url}/metrics`)).text();
    const chat = await stack.chat.app.registry.metrics();
    const edgeCount = sample(edge, 'studium_ai_chat_first_token_seconds_count');
    const edgeSum = sample(edge, 'studium_ai_chat_first_token_seconds_sum');
    const providerSum = sample(chat, 'studium_ai_chat_provider_first_token_seconds_sum', { model: 'scripted-model' });
    expect(edgeCount).toBe(4);
    expect(sample(edge, 'studium_ai_chat_platform_overhead_seconds_count')).toBe(4);
    expect(providerSum).toBeGreaterThan(0.3);
    expect(edgeSum).toBeGreaterThan(providerSum);
    const overhead = sample(edge, 'studium_ai_chat_platform_overhead_seconds_sum');
    expect(overhead).toBeLessThan(edgeSum - 0.3);
    expect(sample(edge, 'studium_ai_chat_streams_total', { outcome: 'done' })).toBe(4);
  });
});
