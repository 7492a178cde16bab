import type { ReleaseQuestion, ReleaseQuiz } from '@studium/contracts';
import type { z } from 'zod';

type Question = z.infer<typeof ReleaseQuestion>;
type Quiz = z.infer<typeof ReleaseQuiz>;

/** A question as issued to an attempt: kept whole (with the correct option) on the server. */
export type IssuedQuestion = Question;

/** A question as the agent sees it: without the correct option and the explanation. */
export function publicQuestion(questions: readonly IssuedQuestion[], index: number) {
  const q = questions[index];
  if (!q) return null;
  return {
    id: q.key,
    text: q.text,
    kind: 'choice',
    options: q.options.map((o) => ({ id: o.id, text: o.text })),
    number: index + 1,
    total: questions.length,
  };
}

/** Normalizes an answer for matching: case, surrounding and repeated spaces, quotes. */
function norm(s: string): string {
  return s
    .toLocaleLowerCase('ru')
    .replace(/[«»"“”]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The option an answer names: by id, or by text (case and extra spaces ignored); null when none. */
export function matchOption(q: IssuedQuestion, answer: string): string | null {
  const a = norm(answer);
  if (!a) return null;
  const byId = q.options.find((o) => norm(o.id) === a);
  if (byId) return byId.id;
  const byText = q.options.find((o) => norm(o.text) === a);
  return byText ? byText.id : null;
}

export interface GivenAnswer {
  question: string;
  correct: boolean;
}

/** Share of correct answers, rounded to 4 places. */
export function score(questions: readonly IssuedQuestion[], answers: readonly GivenAnswer[]): number {
  if (!questions.length) return 0;
  const right = answers.filter((a) => a.correct).length;
  return Math.round((right / questions.length) * 10_000) / 10_000;
}

/**
 * Passed when the score, in whole percent, reaches the threshold: authors write thresholds with
 * two decimals (0.67 for "two of three"), so 2/3 = 66.67 % counts as 67 % and passes 0.67.
 */
export function passes(value: number, threshold: number): boolean {
  return Math.round(value * 100) / 100 + 1e-9 >= threshold;
}

/** Correct answers per objective, in the order the objectives first appear. */
export function objectiveResults(questions: readonly IssuedQuestion[], answers: readonly GivenAnswer[]) {
  const byQuestion = new Map(answers.map((a) => [a.question, a.correct]));
  const out = new Map<string, { objective: string; correct: number; total: number }>();
  for (const q of questions) {
    const key = q.objective ?? '';
    const row = out.get(key) ?? { objective: key, correct: 0, total: 0 };
    row.total++;
    if (byQuestion.get(q.key)) row.correct++;
    out.set(key, row);
  }
  return [...out.values()];
}

/** Explanations of the wrongly answered questions (only ever sent for a passed attempt). */
export function explanationsForWrong(questions: readonly IssuedQuestion[], answers: readonly GivenAnswer[]) {
  const wrong = new Set(answers.filter((a) => !a.correct).map((a) => a.question));
  return questions.filter((q) => wrong.has(q.key)).map((q) => ({ question: q.key, explanation: q.explanation }));
}

/** A finished or cancelled earlier attempt of the run. */
export interface PastAttempt {
  status: 'open' | 'finished' | 'cancelled';
  passed: boolean | null;
  finished_at: string | null;
}

export type AttemptGate =
  | { ok: true; number: number; attemptsLeft: number | null }
  | { ok: false; code: 'quiz_attempts_exhausted'; attemptsUsed: number }
  | { ok: false; code: 'retry_too_soon'; retryAfter: string };

/**
 * Whether a new attempt may start now. Cancelled attempts neither count towards the limit nor
 * start a pause, and the next attempt takes their number.
 */
export function attemptGate(
  quiz: Pick<Quiz, 'attempts' | 'pause_minutes'>,
  past: readonly PastAttempt[],
  now: Date,
): AttemptGate {
  const counted = past.filter((a) => a.status === 'finished');
  const used = counted.length;
  if (quiz.attempts !== null && used >= quiz.attempts && !counted.some((a) => a.passed)) {
    return { ok: false, code: 'quiz_attempts_exhausted', attemptsUsed: used };
  }
  const retry = retryAfter(quiz, counted);
  if (retry && retry.getTime() > now.getTime())
    return { ok: false, code: 'retry_too_soon', retryAfter: retry.toISOString() };
  return {
    ok: true,
    number: used + 1,
    attemptsLeft: quiz.attempts === null ? null : Math.max(quiz.attempts - used, 0),
  };
}

/** When a failed attempt may be retried: the last finished failed attempt plus the pause; null without one. */
export function retryAfter(quiz: Pick<Quiz, 'pause_minutes'>, finished: readonly PastAttempt[]): Date | null {
  const last = finished
    .filter((a) => a.status === 'finished' && a.passed === false && a.finished_at)
    .map((a) => new Date(a.finished_at as string).getTime())
    .sort((a, b) => b - a)[0];
  if (last === undefined) return null;
  return new Date(last + quiz.pause_minutes * 60_000);
}

/** Attempts left after `used` counted attempts; null without a limit. */
export function attemptsLeft(quiz: Pick<Quiz, 'attempts'>, used: number): number | null {
  return quiz.attempts === null ? null : Math.max(quiz.attempts - used, 0);
}

/**
 * Where a lesson's required quiz stands for the next step: `exhausted` — no attempt is left and
 * none passed, so the lesson cannot be passed any more; `retryAfter` — a pause is running until
 * then (ISO). Both are about the next attempt only (docs/decisions.md, the dead end).
 */
export interface QuizStanding {
  exhausted: boolean;
  retryAfter: string | null;
}

/** The standing of a required quiz after the run's attempts; null for a lesson without one. */
export function quizStanding(
  quiz: Pick<Quiz, 'attempts' | 'pause_minutes' | 'required' | 'questions'> | null,
  past: readonly PastAttempt[],
  now: Date,
): QuizStanding | null {
  if (!quiz?.required || !quiz.questions.length) return null;
  if (past.some((a) => a.status === 'open')) return { exhausted: false, retryAfter: null };
  const gate = attemptGate(quiz, past, now);
  if (gate.ok) return { exhausted: false, retryAfter: null };
  if (gate.code === 'quiz_attempts_exhausted') return { exhausted: true, retryAfter: null };
  return { exhausted: false, retryAfter: gate.retryAfter };
}
