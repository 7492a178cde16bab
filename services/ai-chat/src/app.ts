import { type App, createMetrics, type ServiceDeps } from '@studium/platform';
import { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { ActiveAnswers } from './active-answers.ts';
import { AnswerRunner } from './answer-runner.ts';
import { AiChatConfig } from './config.ts';
import type { AiChatDb } from './db.ts';
import { startAnswerHandler } from './handlers/start-answer.ts';
import {
  deleteThreadHandler,
  listThreadsHandler,
  modelStatusHandler,
  threadMessagesHandler,
} from './handlers/threads.ts';
import { createChatMetrics } from './metrics.ts';
import type { ChatModel } from './model/model.ts';
import { OpenAiChatModel } from './model/openai-model.ts';
import { ThreadRepository } from './repositories/thread.repository.ts';
import { tutorHandlers } from './tutor/handlers.ts';
import { TutorRepository } from './tutor/repository.ts';
import { TutorRunner } from './tutor/runner.ts';

/** Migrations of the ai_chat schema. */
export const MIGRATIONS = new URL('../migrations', import.meta.url).pathname;

/** A started ai-chat service. */
export interface AiChatApp extends App {
  /** Its Prometheus registry (the health server's, or its own in tests). */
  registry: Registry;
}

/** The configured model, or null when AI_MODEL is empty. */
export function modelFromConfig(cfg: AiChatConfig): ChatModel | null {
  if (!cfg.AI_MODEL) return null;
  return new OpenAiChatModel({
    baseUrl: cfg.AI_BASE_URL,
    apiKey: cfg.AI_API_KEY,
    model: cfg.AI_MODEL,
    maxRetries: cfg.AI_MAX_RETRIES,
    firstTokenTimeoutMs: cfg.AI_FIRST_TOKEN_TIMEOUT_MS,
    idleTimeoutMs: cfg.AI_IDLE_TIMEOUT_MS,
    answerTimeoutMs: cfg.AI_ANSWER_TIMEOUT_MS,
    maxTokens: cfg.AI_MAX_TOKENS,
  });
}

/** Registers the chat's handlers on the bus; answers stream to their callers over NATS. */
export async function createApp({
  bus,
  nc,
  database,
  log,
  config,
  metrics: registry,
}: ServiceDeps<AiChatDb>): Promise<AiChatApp> {
  const cfg = AiChatConfig.parse(config ?? {});
  const metrics = createChatMetrics(registry ?? createMetrics('ai-chat'));
  const threads = new ThreadRepository(database.db);
  // Producer-style client: fail fast; the limit falls back to this replica's own count.
  const redis = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (err) => log.debug({ err }, 'ai-chat: redis error'));
  const leaseMs = Math.max(15_000, cfg.AI_CHAT_CALLER_TIMEOUT_MS * 3);
  const active = new ActiveAnswers(redis, bus.prefix, cfg.AI_CHAT_ACTIVE_PER_USER, leaseMs);
  const renew = setInterval(() => void active.renew(), leaseMs / 3);
  const model = modelFromConfig(cfg);
  if (!model) log.warn('no model configured (AI_MODEL): every answer will say so');
  const runner = new AnswerRunner({
    nc,
    prefix: bus.prefix,
    threads,
    model,
    active,
    metrics,
    log,
    heartbeatMs: cfg.AI_CHAT_HEARTBEAT_MS,
    callerTimeoutMs: cfg.AI_CHAT_CALLER_TIMEOUT_MS,
    coalesceMs: cfg.AI_CHAT_COALESCE_MS,
  });
  // The platform's tutor (issue 23): the same model, its own conversations and runner.
  const tutorRepo = new TutorRepository(database.db);
  const tutor = new TutorRunner({
    nc,
    prefix: bus.prefix,
    bus,
    repo: tutorRepo,
    model,
    active,
    metrics,
    log,
    heartbeatMs: cfg.AI_CHAT_HEARTBEAT_MS,
    callerTimeoutMs: cfg.AI_CHAT_CALLER_TIMEOUT_MS,
    toolsTimeoutMs: cfg.AI_TUTOR_TOOLS_TIMEOUT_MS,
    maxRounds: cfg.AI_TUTOR_TOOL_ROUNDS,
    coalesceMs: cfg.AI_CHAT_COALESCE_MS,
  });
  const service = await bus.serve('ai-chat', [
    ...tutorHandlers(tutorRepo, active, tutor, cfg.AI_CHAT_ACTIVE_PER_USER, model !== null),
    startAnswerHandler(threads, active, runner, cfg.AI_CHAT_ACTIVE_PER_USER),
    listThreadsHandler(threads),
    threadMessagesHandler(threads),
    deleteThreadHandler(threads),
    modelStatusHandler(model?.name ?? null),
  ]);
  return {
    registry: metrics.registry,
    async stop() {
      await service.stop();
      await runner.stop();
      await tutor.stop();
      clearInterval(renew);
      redis.disconnect();
    },
  };
}
