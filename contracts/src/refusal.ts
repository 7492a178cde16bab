import { z } from 'zod';

/** An expected refusal: a value with a spec code, a Russian message and the refusal's own details. */
export const Refusal = z.looseObject({ code: z.string(), message: z.string() });
export type Refusal = z.infer<typeof Refusal>;

/** A reply on the bus and the body of every tool result: data, or an expected refusal. */
export type Reply<T> = { ok: true; data: T } | { ok: false; error: Refusal };

/** Builds a refusal value (never thrown). */
export function refuse<C extends string>(code: C, message: string, details: Record<string, unknown> = {}) {
  return { ok: false as const, error: { code, message, ...details } };
}

/** Wraps data in a successful reply. */
export function ok<T>(data: T): { ok: true; data: T } {
  return { ok: true, data };
}

/**
 * Failures that are not refusals (spec 000, "Когда сервер откажет"): they cross the bus as a
 * NATS service error with this status and reach the agent as one fixed phrase.
 */
export const FailureStatus = {
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  invariant: 417,
  tooManyRequests: 429,
  unavailable: 503,
} as const;
export type FailureStatus = (typeof FailureStatus)[keyof typeof FailureStatus];

/** The spec's fixed phrase for each failure status. */
export const failurePhrase: Record<FailureStatus, string> = {
  401: 'сессия истекла, требуется повторная авторизация',
  403: 'нет доступа к этим данным',
  404: 'запрошенного объекта не существует',
  417: 'сервис отклонил запрос как некорректный',
  429: 'слишком много запросов, попробуйте чуть позже',
  503: 'учебный сервис сейчас недоступен, попробуйте позже',
};

/** Maps any HTTP-like status to the phrase the agent sees (every 5xx and unknown status is "unavailable"). */
export function phraseFor(status: number): string {
  if (status in failurePhrase) return failurePhrase[status as FailureStatus];
  return failurePhrase[503];
}
