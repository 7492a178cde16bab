import type { Refusal } from '@studium/contracts';
import { phraseFor } from '@studium/contracts';
import { serializedData } from './reply-json.ts';

/** JSON with ", " and ": " separators, as the spec's examples print details. */
export function specJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(specJson).join(', ')}]`;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${specJson(v)}`).join(', ')}}`;
}

/** A refusal as the agent reads it: `message [code] field: json …` (spec 000, "Когда сервер откажет"). */
export function refusalText(error: Refusal): string {
  const { code, message, ...details } = error;
  const parts = [`${message} [${code}]`];
  for (const [k, v] of Object.entries(details)) {
    if (v !== undefined) parts.push(`${k}: ${specJson(v)}`);
  }
  return parts.join(' ');
}

/**
 * A tool result carrying data. structuredContent is the bus reply itself, `{ ok: true, data }`,
 * so that success and refusal share one output schema (see {@link envelope}). The text content is
 * the JSON of data, made once per data object (a kept reply brings the same object back), which
 * the legacy JSON reply reuses for structuredContent.
 */
export function dataResult(data: unknown) {
  const { text } = serializedData(data);
  const structuredContent = { ok: true, data } as Record<string, unknown>;
  return { content: [{ type: 'text' as const, text }], structuredContent };
}

/** A tool error carrying a refusal, with the whole `{ ok: false, error }` in structuredContent. */
export function refusalResult(error: Refusal) {
  return {
    isError: true,
    content: [{ type: 'text' as const, text: refusalText(error) }],
    structuredContent: { ok: false, error } as Record<string, unknown>,
  };
}

/** A tool error for a failure: one fixed phrase, no code, nothing internal. */
export function failureResult(status: number) {
  return { isError: true, content: [{ type: 'text' as const, text: phraseFor(status) }] };
}

/**
 * The 429 failure: its fixed phrase, with `retry_after` (seconds until the token's window ends) as
 * the detail the spec's refusals carry for "when the call may be repeated"; `rate_limited` is the
 * code to branch on.
 */
export function rateLimitedResult(retryAfter: number) {
  return refusalResult({ code: 'rate_limited', message: phraseFor(429), retry_after: retryAfter });
}
