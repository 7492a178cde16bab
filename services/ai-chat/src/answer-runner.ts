import { CHAT_CONTEXT_MESSAGES, ChatControl, type ChatFrame, type ChatMessage } from '@studium/contracts';
import type { Logger } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { ActiveAnswers } from './active-answers.ts';
import { type AnswerFailure, failureText } from './domain/failures.ts';
import { modelMessages } from './domain/prompt.ts';
import { type ChatMetrics, userLabel } from './metrics.ts';
import { type ChatModel, ModelError } from './model/model.ts';
import type { ThreadRepository } from './repositories/thread.repository.ts';
import { StreamedJobs } from './streamed-jobs.ts';

/** One answer to write: whose, in which thread, and where its frames go. */
export interface AnswerJob {
  user: string;
  threadId: string;
  /** Also the answer's key in {@link ActiveAnswers}. */
  messageId: string;
  inbox: string;
  /** What the model sees, when the caller knows it already (a new thread: the question alone). */
  window?: ChatMessage[];
}

export interface AnswerRunnerDeps {
  nc: NatsConnection;
  /** The bus prefix (the answers' control subjects are under it). */
  prefix: string;
  threads: ThreadRepository;
  /** Null when no model is configured: every answer is the `no_model` error. */
  model: ChatModel | null;
  active: ActiveAnswers;
  metrics: ChatMetrics;
  log: Logger;
  heartbeatMs: number;
  callerTimeoutMs: number;
  /** Pieces of an answer that arrive within this many ms of the last frame share one frame. */
  coalesceMs: number;
}

type Frame = ChatFrame extends infer F ? (F extends ChatFrame ? Omit<F, 'seq'> : never) : never;

/**
 * Writes answers: asks the model with the thread's last 30 messages, streams the pieces to the
 * caller's inbox with heartbeats, saves the answer only when it is complete, and aborts the model
 * call when the caller cancels or stops saying it is alive.
 */
export class AnswerRunner {
  private readonly jobs: StreamedJobs<Frame>;

  constructor(private readonly deps: AnswerRunnerDeps) {
    this.jobs = new StreamedJobs<Frame>(deps);
  }

  /** Starts the answer in the background; returns the subject the caller sends controls to. */
  start(job: AnswerJob): string {
    return this.jobs.start(
      { id: job.messageId, user: job.user, inbox: job.inbox },
      {
        parse: (value) => {
          const parsed = ChatControl.safeParse(value);
          return parsed.success ? parsed.data : null;
        },
        run: (signal, send) => this.write(job, signal, send),
        onError: (err) => this.deps.log.error({ err, thread: job.threadId }, 'answer failed'),
      },
    );
  }

  /** Aborts every answer in progress, telling each caller why, and waits for them to end. */
  stop(): Promise<void> {
    return this.jobs.stop();
  }

  private async write(job: AnswerJob, signal: AbortSignal, send: (f: Frame) => void): Promise<void> {
    const { model, metrics, threads } = this.deps;
    const modelName = model?.name ?? 'none';
    const fail = (failure: AnswerFailure) => {
      metrics.answers.labels(modelName, failure).inc();
      send({ type: 'error', content: failureText(failure) });
    };
    if (!model) return fail('no_model');
    const window = job.window ?? (await threads.window(job.threadId, CHAT_CONTEXT_MESSAGES));
    const messages = modelMessages(window);
    const started = performance.now();
    let text = '';
    let usage: { input: number; output: number } | undefined;
    // The first piece goes at once; later ones are gathered for up to coalesceMs, so a fast model
    // costs the bus and the edge at most 1000 / coalesceMs frames a second per answer.
    let pending = '';
    let timer: NodeJS.Timeout | null = null;
    let lastFlush = 0;
    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (pending) send({ type: 'content', content: pending });
      pending = '';
      lastFlush = performance.now();
    };
    try {
      for await (const delta of model.streamChat(messages, signal)) {
        if (delta.usage) usage = delta.usage;
        if (!delta.content) continue;
        if (text === '') {
          const ttft = performance.now() - started;
          metrics.providerFirstToken.labels(modelName).observe(ttft / 1000);
          send({ type: 'content', content: delta.content, provider_ttft_ms: Math.round(ttft * 10) / 10 });
          lastFlush = performance.now();
        } else {
          pending += delta.content;
          const wait = lastFlush + this.deps.coalesceMs - performance.now();
          if (wait <= 0) flush();
          else timer ??= setTimeout(flush, wait);
        }
        text += delta.content;
      }
      flush();
    } catch (err) {
      if (timer) clearTimeout(timer);
      if (signal.aborted) return this.aborted(signal, modelName, fail);
      flush();
      const failure = err instanceof ModelError && err.kind !== 'cancelled' ? err.kind : 'broken';
      this.deps.log.warn({ err, model: modelName }, 'model call failed');
      return fail(failure);
    }
    if (signal.aborted) return this.aborted(signal, modelName, fail);
    metrics.answerSeconds.labels(modelName).observe((performance.now() - started) / 1000);
    if (text.trim() === '') return fail('empty');
    // Providers that report no usage: a rough count (about four characters a token) keeps the metric useful.
    const tokensIn = usage?.input ?? Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
    const tokensOut = usage?.output ?? Math.ceil(text.length / 4);
    metrics.tokens.labels(userLabel(job.user), modelName, 'in').inc(tokensIn);
    metrics.tokens.labels(userLabel(job.user), modelName, 'out').inc(tokensOut);
    const id = await threads.addAnswer(job.threadId, text, { model: modelName, tokensIn, tokensOut });
    if (id === false) return fail('thread_deleted');
    metrics.answers.labels(modelName, 'done').inc();
    send({ type: 'done', ai_message_id: id });
  }

  /** A cancelled answer or a vanished caller saves nothing; a shutdown says so to the caller. */
  private aborted(signal: AbortSignal, modelName: string, fail: (f: AnswerFailure) => void): void {
    if (signal.reason === 'shutdown') fail('shutdown');
    else this.deps.metrics.answers.labels(modelName, 'cancelled').inc();
  }
}
