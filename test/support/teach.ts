import type { Release } from '@studium/contracts';
import { type AgentClient, data } from './clients.ts';

/** What the student knows: the right option of each quiz question of a release, and a wrong one. */
export type QuizKey = Map<string, { right: string; wrong: string }>;

/** The quiz key of a release (the published content or a test fixture), by question key. */
export function quizKey(release: Release): QuizKey {
  const key: QuizKey = new Map();
  for (const lesson of release.chapters.flatMap((c) => c.lessons)) {
    for (const q of lesson.quiz?.questions ?? []) {
      key.set(q.key, { right: q.correct, wrong: q.options.find((o) => o.id !== q.correct)?.id as string });
    }
  }
  return key;
}

export type QuizQuestion = { id: string; options: Array<{ id: string; text: string }> };

/**
 * Answers every question of a quiz attempt through submit_answer: the right options, or wrong ones
 * with `wrong`; the student's words are the option's text unless `words` are given. Returns the
 * last reply (with `result`).
 */
export async function answerQuiz(
  agent: AgentClient,
  attempt: string,
  first: QuizQuestion,
  key: QuizKey,
  { wrong = false, words }: { wrong?: boolean; words?: string } = {},
): Promise<Record<string, unknown>> {
  let question: QuizQuestion | null = first;
  let last: Record<string, unknown> = {};
  while (question) {
    const known = key.get(question.id);
    if (!known) throw new Error(`no answer known for question ${question.id}`);
    const answer = wrong ? known.wrong : known.right;
    const said = words ?? (question.options.find((o) => o.id === answer)?.text as string);
    last = data(await agent.callTool('submit_answer', { attempt, question: question.id, answer, student_words: said }));
    question = last.next_question as QuizQuestion | null;
  }
  return last;
}

export interface PassedLesson {
  /** start_lesson's reply. */
  started: Record<string, unknown>;
  session: string;
  /** How the lesson closed: complete_lesson, or the passed quiz attempt. */
  via: 'complete' | 'quiz';
  /** complete_lesson's reply, or the `result` of the last submit_answer. */
  closed: Record<string, unknown>;
  /** The passed quiz attempt, when the lesson closed by its quiz. */
  attempt?: string;
}

/**
 * Teaches a lesson to the end through the edge, as a student's agent does: start_lesson (with
 * `lesson`, `course`, `space` as given), then follows next_step — mark_goal done with evidence for
 * each open required item, request_quiz answered from `quiz` (with `words` as the student's, if
 * given) when the lesson's quiz is required, complete_lesson otherwise. Fails unless the lesson
 * ends passed.
 */
export async function passLesson(
  agent: AgentClient,
  start: { lesson?: string; course?: string; space?: string },
  options: { evidence?: string; quiz?: QuizKey; words?: string } = {},
): Promise<PassedLesson> {
  const started = data(await agent.callTool('start_lesson', start));
  const session = started.session as string;
  let step = started.next_step as { kind: string; goal?: string; title?: string } | null;
  while (step?.kind === 'goal') {
    const evidence = options.evidence ?? `Ученица показала «${step.title}» на своей рабочей задаче`;
    const marked = data(await agent.callTool('mark_goal', { session, goal: step.goal, status: 'done', evidence }));
    step = marked.next_step as typeof step;
  }
  if (step?.kind === 'quiz') {
    if (!options.quiz) throw new Error(`the lesson of session ${session} has a required quiz and no answers given`);
    const q = data(await agent.callTool('request_quiz', { session }));
    const last = await answerQuiz(agent, q.attempt as string, q.question as QuizQuestion, options.quiz, {
      words: options.words,
    });
    const result = last.result as { passed?: boolean; session_status?: string } | undefined;
    if (!result?.passed || result.session_status !== 'closed') {
      throw new Error(`the quiz did not pass the lesson: ${JSON.stringify(result)}`);
    }
    return { started, session, via: 'quiz', closed: result, attempt: q.attempt as string };
  }
  if (step?.kind !== 'complete') throw new Error(`unexpected next_step ${JSON.stringify(step)}`);
  const closed = data(await agent.callTool('complete_lesson', { session }));
  if (closed.status !== 'closed') {
    throw new Error(`complete_lesson did not close the session: ${JSON.stringify(closed)}`);
  }
  return { started, session, via: 'complete', closed };
}
