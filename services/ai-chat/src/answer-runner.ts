import { CHAT_CONTEXT_MESSAGES, ChatControl, type ChatFrame, type ChatMessage } from '@studium/contracts';
import { type Logger, newInbox } from '@studium/platform';
import type { NatsConnection, Subscription } from 'nats';
import type { ActiveAnswers } from './active-answers.ts';
import { type AnswerFailure, failureText } from './domain/failures.ts';
import { modelMessages } from './domain/prompt.ts';
import { type ChatMetrics, userLabel } from './metrics.ts';
import { type ChatModel, ModelError } from './model/model.ts';
import type { ThreadRepository } from './repositories/thread.repository.ts';

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

interface Running {
  abort: AbortController;
  done: Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Writes answers: asks the model with the thread's last 30 messages, streams the pieces to the
 * caller's inbox with heartbeats, saves the answer only when it is complete, and aborts the model
 * call when the caller cancels or stops saying it is alive.
 */
export class AnswerRunner {
  private readonly running = new Map<string, Running>();
  private readonly frames: FrameBatch;

  constructor(private readonly deps: AnswerRunnerDeps) {
    this.frames = new FrameBatch(deps.nc);
  }

  /** Starts the answer in the background; returns the subject the caller sends controls to. */
  start(job: AnswerJob): string {
    const { nc, heartbeatMs, callerTimeoutMs } = this.deps;
    const control = newInbox(nc);
    const abort = new AbortController();
    let lastAlive = Date.now();
    let seq = 0;
    let lastSent = Date.now();
    const send = (frame: Frame) => {
      lastSent = Date.now();
      this.frames.publish(job.inbox, enc.encode(JSON.stringify({ ...frame, seq: ++seq })));
    };
    const sub: Subscription = nc.subscribe(control, {
      callback: (_err, msg) => {
        let parsed: ReturnType<typeof ChatControl.safeParse>;
        try {
          parsed = ChatControl.safeParse(JSON.parse(dec.decode(msg.data)));
        } catch {
          return;
        }
        if (!parsed.success) return;
        if (parsed.data.type === 'alive') lastAlive = Date.now();
        else abort.abort('cancel');
      },
    });
    const beat = setInterval(() => {
      if (Date.now() - lastAlive > callerTimeoutMs) abort.abort('caller_gone');
      else if (Date.now() - lastSent >= heartbeatMs / 2) send({ type: 'heartbeat' });
    }, heartbeatMs);
    this.deps.metrics.inProgress.inc();
    const done = this.write(job, abort.signal, send)
      .catch((err) => this.deps.log.error({ err, thread: job.threadId }, 'answer failed'))
      .finally(() => {
        clearInterval(beat);
        sub.unsubscribe();
        this.running.delete(job.messageId);
        this.deps.metrics.inProgress.dec();
        void this.deps.active.release(job.user, job.messageId);
      });
    this.running.set(job.messageId, { abort, done });
    return control;
  }

  /** Aborts every answer in progress, telling each caller why, and waits for them to end. */
  async stop(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort('shutdown');
    await Promise.all([...this.running.values()].map((r) => r.done));
    this.frames.flush(); // before the connection drains
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

/**
 * Frames of every answer published in this turn of the event loop go out together: the NATS
 * client writes its buffer once per microtask, and pieces of different answers arrive in different
 * I/O callbacks, so publishing them at once here costs one socket write instead of one each. The
 * order of each answer's frames is kept.
 */
export class FrameBatch {
  private queue: Array<[string, Uint8Array]> = [];

  constructor(private readonly nc: NatsConnection) {}

  publish(subject: string, data: Uint8Array): void {
    if (this.queue.push([subject, data]) === 1) setImmediate(() => this.flush());
  }

  flush(): void {
    const queue = this.queue;
    this.queue = [];
    for (const [subject, data] of queue) {
      try {
        this.nc.publish(subject, data);
      } catch {
        // The connection closed under a running answer (shutdown): its caller hears nothing more and times out.
      }
    }
  }
}
