import { createHash } from 'node:crypto';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The ai-chat service's Prometheus metrics. */
export interface ChatMetrics {
  registry: Registry;
  tokens: Counter<'user' | 'model' | 'direction'>;
  answers: Counter<'model' | 'outcome'>;
  inProgress: Gauge;
  providerFirstToken: Histogram<'model'>;
  answerSeconds: Histogram<'model'>;
}

const SECONDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

export function createChatMetrics(registry: Registry): ChatMetrics {
  return {
    registry,
    tokens: new Counter({
      name: 'studium_ai_chat_tokens_total',
      help: 'Model tokens per teacher (a pseudonym of the user id, see userLabel) and model: direction "in" (prompt) or "out" (answer); the provider counts them when it reports usage',
      labelNames: ['user', 'model', 'direction'],
      registers: [registry],
    }),
    answers: new Counter({
      name: 'studium_ai_chat_answers_total',
      help: 'Answers by model and outcome (done, cancelled, or the failure: rate_limited, timeout, unavailable, …)',
      labelNames: ['model', 'outcome'],
      registers: [registry],
    }),
    inProgress: new Gauge({
      name: 'studium_ai_chat_answers_in_progress',
      help: 'Answers this replica is writing now',
      registers: [registry],
    }),
    providerFirstToken: new Histogram({
      name: 'studium_ai_chat_provider_first_token_seconds',
      help: "The provider's time to first token: from the model request to its first piece of text",
      labelNames: ['model'],
      buckets: SECONDS,
      registers: [registry],
    }),
    answerSeconds: new Histogram({
      name: 'studium_ai_chat_answer_seconds',
      help: 'Duration of answers, from the model request to the last token',
      labelNames: ['model'],
      buckets: SECONDS,
      registers: [registry],
    }),
  };
}

/**
 * The `user` label of the token counter: the first 16 hex digits of the SHA-256 of the user id.
 * A user's id is their login, an e-mail: Prometheus (and whoever reads it) gets a stable pseudonym
 * instead, which an operator who knows the login can compute to find that teacher's usage.
 */
export function userLabel(user: string): string {
  return createHash('sha256').update(user).digest('hex').slice(0, 16);
}
