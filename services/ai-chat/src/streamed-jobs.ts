import { CONTROL_SUBJECT, onceSubject } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { ActiveAnswers } from './active-answers.ts';
import type { ChatMetrics } from './metrics.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Frames of every job published in this turn of the event loop go out together: the NATS client
 * writes its buffer once per microtask, and pieces of different jobs arrive in different I/O
 * callbacks, so publishing them at once here costs one socket write instead of one each. The
 * order of each job's frames is kept.
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
        // The connection closed under a running job (shutdown): its caller hears nothing more and times out.
      }
    }
  }
}

export interface StreamedJobsDeps {
  nc: NatsConnection;
  /** The bus prefix: a job's control subject is `<prefix>.ai-chat.control.<token>`. */
  prefix: string;
  active: ActiveAnswers;
  metrics: Pick<ChatMetrics, 'inProgress'>;
  heartbeatMs: number;
  callerTimeoutMs: number;
}

/** How one job runs: what its controls are, its work, and what a crash of the work tells the caller. */
export interface JobSpec<F, C extends { type: string }> {
  /** A control message, parsed; null for one that is not (ignored). */
  parse(value: unknown): C | null;
  /** Controls besides `alive` and `cancel`, which are handled here. */
  onControl?(control: C): void;
  /** The job's work; it stops soon after `signal` aborts (cancel, caller gone, shutdown). */
  run(signal: AbortSignal, send: (frame: F) => void): Promise<void>;
  /** The work threw: log it (and send the caller an error frame when it waits for one). */
  onError(err: unknown, send: (frame: F) => void): void;
}

/**
 * The life of ai-chat's streamed jobs (a teacher's answer, a tutor turn), which the edge relays
 * to its caller: a control subject of the job's own (`ai-chat.control.<token>`, which only the
 * edge may publish to), frames numbered in order and batched per turn of the event loop, a heartbeat while the
 * job is quiet, an abort when the caller cancels or stops saying it is alive (any control counts),
 * the in-progress gauge and the caller's active-job slot, and the running jobs, which `stop()`
 * aborts and waits for.
 */
export class StreamedJobs<F extends object> {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly frames: FrameBatch;

  constructor(private readonly deps: StreamedJobsDeps) {
    this.frames = new FrameBatch(deps.nc);
  }

  /** Starts the job in the background; returns the subject the caller sends controls to. */
  start<C extends { type: string }>(job: { id: string; user: string; inbox: string }, spec: JobSpec<F, C>): string {
    const { nc, heartbeatMs, callerTimeoutMs } = this.deps;
    const control = onceSubject(this.deps.prefix, CONTROL_SUBJECT);
    const abort = new AbortController();
    let lastAlive = Date.now();
    let lastSent = Date.now();
    let seq = 0;
    const send = (frame: F) => {
      lastSent = Date.now();
      this.frames.publish(job.inbox, enc.encode(JSON.stringify({ ...frame, seq: ++seq })));
    };
    const sub = nc.subscribe(control, {
      callback: (_err, msg) => {
        let parsed: C | null;
        try {
          parsed = spec.parse(JSON.parse(dec.decode(msg.data)));
        } catch {
          return;
        }
        if (!parsed) return;
        lastAlive = Date.now();
        if (parsed.type === 'cancel') abort.abort('cancel');
        else if (parsed.type !== 'alive') spec.onControl?.(parsed);
      },
    });
    const beat = setInterval(() => {
      if (Date.now() - lastAlive > callerTimeoutMs) abort.abort('caller_gone');
      else if (Date.now() - lastSent >= heartbeatMs / 2) send({ type: 'heartbeat' } as F);
    }, heartbeatMs);
    this.deps.metrics.inProgress.inc();
    const done = spec
      .run(abort.signal, send)
      .catch((err) => spec.onError(err, send))
      .finally(() => {
        clearInterval(beat);
        sub.unsubscribe();
        this.running.delete(job.id);
        this.deps.metrics.inProgress.dec();
        void this.deps.active.release(job.user, job.id);
      });
    this.running.set(job.id, { abort, done });
    return control;
  }

  /** Aborts every job in progress (its work tells its caller why) and waits for them to end. */
  async stop(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort('shutdown');
    await Promise.all([...this.running.values()].map((r) => r.done));
    this.frames.flush(); // before the connection drains
  }
}
