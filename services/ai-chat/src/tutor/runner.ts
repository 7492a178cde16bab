import {
  lessonsTeachingRules,
  TUTOR_CALLS_PER_ROUND,
  TUTOR_TITLE_MAX,
  TUTOR_TOOL_RESULT_MAX,
  TutorControl,
  type TutorFrame,
  type TutorToolCall,
} from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import type { NatsConnection } from 'nats';
import type { ActiveAnswers } from '../active-answers.ts';
import { type AnswerFailure, failureText } from '../domain/failures.ts';
import type { ChatMetrics } from '../metrics.ts';
import { type ChatModel, ModelError, type ModelMessage } from '../model/model.ts';
import { StreamedJobs } from '../streamed-jobs.ts';
import { Coalescer } from './coalescer.ts';
import { TUTOR_MODEL_TOOLS, tutorInstructions } from './prompt.ts';
import type { LessonTitles, TutorRepository, TutorRound } from './repository.ts';
import { TurnRule } from './turn-rule.ts';

/** One turn to run: whose, which conversation, where its frames go. */
export interface TurnJob {
  user: string;
  conversationId: string;
  lesson: string;
  /** The titles of the conversation's course and lesson, as far as they are known. */
  titles: LessonTitles;
  inbox: string;
  /** The key of the turn in {@link ActiveAnswers}. */
  turnId: string;
}

export interface TutorRunnerDeps {
  nc: NatsConnection;
  /** The bus prefix (the answers' control subjects are under it). */
  prefix: string;
  bus: Bus;
  repo: TutorRepository;
  model: ChatModel | null;
  active: ActiveAnswers;
  metrics: ChatMetrics;
  log: Logger;
  heartbeatMs: number;
  callerTimeoutMs: number;
  /** How long the edge may take to run one round's tool calls. */
  toolsTimeoutMs: number;
  /** Model rounds a turn may take. */
  maxRounds: number;
  /** Pieces of text arriving within this many ms of the last frame share one frame (the first goes at once). */
  coalesceMs: number;
}

type Frame = TutorFrame extends infer F ? (F extends TutorFrame ? Omit<F, 'seq'> : never) : never;
type Results = Array<{ id: string; content: string }>;

const TOO_MANY_ROUNDS =
  'Репетитор запутался в шагах занятия и остановился. Ваше сообщение сохранено — напишите ещё раз или продолжите другими словами.';
const TOO_MANY_CALLS = JSON.stringify({
  error: {
    code: 'too_many_calls',
    message: `За один шаг выполняется не больше ${TUTOR_CALLS_PER_ROUND} вызовов: повторите остальные следующим шагом`,
  },
});
const TOOLS_LOST = 'Платформа не выполнила шаги занятия вовремя, ход прерван. Напишите ещё раз.';
/** The note of a reply the student stopped (or whose page went away); the page shows the same. */
const STOPPED = 'Остановлено.';

/**
 * Runs tutor turns: model rounds with the lesson tools, up to `maxRounds` a turn.
 * Text streams to the caller (the edge) as it comes; the round's tool calls go to the caller, who
 * runs them for the student with the student's signed principal, and come back as results on the
 * control subject. Calls the turn rule refuses never leave this service.
 */
export class TutorRunner {
  // As the teachers' chat: frames of every turn published in one turn of the event loop share a
  // socket write (bench:tutor showed the writes of single frames as ai-chat's largest CPU cost).
  private readonly jobs: StreamedJobs<Frame>;

  constructor(private readonly deps: TutorRunnerDeps) {
    this.jobs = new StreamedJobs<Frame>(deps);
  }

  start(job: TurnJob): string {
    const waiting = new Map<number, (r: Results) => void>();
    /** The results of a round's tool calls from the caller, or null when they do not come in time. */
    const results = (round: number, signal: AbortSignal) =>
      new Promise<Results | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), this.deps.toolsTimeoutMs);
        const onAbort = () => resolve(null);
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.set(round, (r) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        });
      });
    return this.jobs.start(
      { id: job.turnId, user: job.user, inbox: job.inbox },
      {
        parse: (value) => {
          const parsed = TutorControl.safeParse(value);
          return parsed.success ? parsed.data : null;
        },
        onControl: (c) => {
          if (c.type === 'tool_results') waiting.get(c.round)?.(c.results);
        },
        run: (signal, send) => this.turn(job, signal, send, (round) => results(round, signal)),
        onError: (err, send) => {
          this.deps.log.error({ err, conversation: job.conversationId }, 'tutor turn failed');
          send({ type: 'error', content: failureText('broken') });
        },
      },
    );
  }

  stop(): Promise<void> {
    return this.jobs.stop();
  }

  private async turn(
    job: TurnJob,
    signal: AbortSignal,
    send: (f: Frame) => void,
    results: (round: number) => Promise<Results | null>,
  ): Promise<void> {
    const { model, metrics, repo, bus } = this.deps;
    const modelName = model?.name ?? 'none';
    // A reply that did not end is kept with the note the student reads, before they are told, so
    // a reload right after shows it as it was shown; the model's window leaves it out.
    const interrupt = async (text: string, note: string) => {
      try {
        await repo.addInterrupted(job.conversationId, text, note);
      } catch (err) {
        this.deps.log.warn({ err, conversation: job.conversationId }, 'interrupted tutor reply not kept');
      }
    };
    const fail = async (failure: AnswerFailure, text = '') => {
      metrics.answers.labels(modelName, failure).inc();
      if (failure !== 'thread_deleted') await interrupt(text, failureText(failure));
      send({ type: 'error', content: failureText(failure) });
    };
    /** A cancelled turn or a vanished caller keeps the text as stopped; a shutdown says so to the caller. */
    const aborted = async (text: string) => {
      if (signal.reason === 'shutdown') return fail('shutdown', text);
      metrics.answers.labels(modelName, 'cancelled').inc();
      await interrupt(text, STOPPED);
    };
    if (!model) return fail('no_model');
    const [rules, past] = await Promise.all([
      bus.request(lessonsTeachingRules, null, {}),
      repo.window(job.conversationId),
    ]);
    if (!rules.ok) throw new Error(`teaching rules: ${rules.error.code}`);
    const messages: ModelMessage[] = [
      { role: 'system', content: tutorInstructions(job.lesson, job.titles, rules.data) },
      ...past.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
        ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
      })),
    ];
    const rule = new TurnRule();
    let providerMs = 0;
    for (let round = 1; round <= this.deps.maxRounds; round++) {
      const started = performance.now();
      let text = '';
      let calls: TutorToolCall[] = [];
      const pieces = new Coalescer(this.deps.coalesceMs, (content) => send({ type: 'content', content }));
      try {
        for await (const delta of model.streamChat(messages, signal, TUTOR_MODEL_TOOLS)) {
          if (delta.toolCalls) calls = delta.toolCalls.map((c, i) => ({ ...c, id: c.id || `call_${round}_${i}` }));
          if (!delta.content) continue;
          if (text === '') {
            const ttft = Math.round((performance.now() - started) * 10) / 10;
            send({ type: 'content', content: delta.content, provider_ttft_ms: ttft });
            pieces.sent();
          } else pieces.add(delta.content);
          text += delta.content;
        }
        pieces.flush();
      } catch (err) {
        if (signal.aborted) {
          pieces.drop();
          return aborted(text);
        }
        pieces.flush();
        this.deps.log.warn({ err, model: modelName }, 'tutor model call failed');
        return fail(err instanceof ModelError && err.kind !== 'cancelled' ? err.kind : 'broken', text);
      }
      if (signal.aborted) return aborted(text);
      providerMs += performance.now() - started;
      metrics.answerSeconds.labels(modelName).observe((performance.now() - started) / 1000);
      if (calls.length === 0) {
        if (text.trim() === '') return fail('empty');
        if (!(await repo.addRound(job.conversationId, { text, calls, results: [] }, null)))
          return fail('thread_deleted');
        metrics.answers.labels(modelName, 'done').inc();
        return send({ type: 'done', provider_ms: Math.round(providerMs * 10) / 10 });
      }
      // The turn rule first: refused calls are answered here and never reach the platform.
      const refused = rule.checkRound(calls);
      // A bounded round: the results of all calls must fit one message from the edge.
      for (const c of calls.slice(TUTOR_CALLS_PER_ROUND)) refused.set(c.id, TOO_MANY_CALLS);
      for (const c of calls) if (refused.has(c.id)) send({ type: 'tool_refused', id: c.id, name: c.name });
      const toRun = calls.filter((c) => !refused.has(c.id));
      let got: Results = [];
      if (toRun.length) {
        send({ type: 'tool_calls', round, calls: toRun, provider_ms: Math.round(providerMs * 10) / 10 });
        const r = await results(round);
        if (signal.aborted) return aborted(text);
        if (!r) {
          await interrupt(text, TOOLS_LOST);
          return send({ type: 'error', content: TOOLS_LOST });
        }
        got = r;
      }
      const byId = new Map(got.map((r) => [r.id, r.content]));
      const saved: TutorRound = {
        text,
        calls,
        results: calls.map((c) => ({
          id: c.id,
          name: c.name,
          content: (refused.get(c.id) ?? byId.get(c.id) ?? missingResult(c.name)).slice(0, TUTOR_TOOL_RESULT_MAX),
        })),
      };
      for (const r of saved.results) rule.saw(r.name, r.content);
      if (!(await repo.addRound(job.conversationId, saved, startedLesson(saved.results))))
        return fail('thread_deleted');
      messages.push({ role: 'assistant', content: text, tool_calls: calls });
      for (const r of saved.results) messages.push({ role: 'tool', content: r.content, tool_call_id: r.id });
    }
    metrics.answers.labels(modelName, 'too_many_rounds').inc();
    await interrupt('', TOO_MANY_ROUNDS);
    send({ type: 'error', content: TOO_MANY_ROUNDS });
  }
}

/** A call the caller did not answer: the model hears that it did not run. */
function missingResult(name: string): string {
  return JSON.stringify({ error: { code: 'not_run', message: `Инструмент ${name} не выполнен` } });
}

/** The session start_lesson opened in this round and its lesson's titles, if it did. */
function startedLesson(
  results: Array<{ name: string; content: string }>,
): { session: string; titles: LessonTitles } | null {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.slice(0, TUTOR_TITLE_MAX) : null);
  for (const r of results) {
    if (r.name !== 'start_lesson') continue;
    try {
      const reply = JSON.parse(r.content) as {
        session?: unknown;
        lesson?: { title?: unknown; course_title?: unknown };
      };
      if (typeof reply.session !== 'string') continue;
      return {
        session: reply.session,
        titles: { course: text(reply.lesson?.course_title), lesson: text(reply.lesson?.title) },
      };
    } catch {
      // Not JSON: a failure text.
    }
  }
  return null;
}
