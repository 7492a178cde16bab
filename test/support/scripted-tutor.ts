import type { LlmRequest, LlmScript } from '@studium/testing';

type Json = Record<string, unknown>;
type Question = {
  id: string;
  text: string;
  options: Array<{ id: string; text: string }>;
  number: number;
  total: number;
};
type Step = { kind: string; goal?: string; title?: string } | null;

/** What the conversation shows so far: the tool results in order, with the tool that gave each. */
function toolResults(req: LlmRequest): Array<{ name: string; data: Json }> {
  const names = new Map<string, string>();
  const out: Array<{ name: string; data: Json }> = [];
  for (const m of req.body.messages) {
    for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
    if (m.role === 'tool') {
      let data: Json = {};
      try {
        data = JSON.parse(m.content ?? '{}') as Json;
      } catch {}
      out.push({ name: names.get(m.tool_call_id ?? '') ?? '?', data });
    }
  }
  return out;
}

/** The quiz question shown whole, as the tutor writes it. */
export function questionText(q: Question): string {
  return [`**Вопрос ${q.number} из ${q.total}.** ${q.text}`, ...q.options.map((o) => `- ${o.id}) ${o.text}`)].join(
    '\n',
  );
}

export interface TutorScriptOptions {
  /** The start_lesson arguments. */
  start: { lesson?: string; course?: string };
  /** Offer a choice with buttons right after start_lesson, before the goals. */
  choose?: { prompt: string; options: string[] };
  /** Break the turn rule: answer the quiz's first question in the same turn it was issued. */
  answerInSameTurn?: string;
}

/**
 * A scripted tutor on the scripted OpenAI-compatible server: it reads the conversation it is sent
 * (the student's messages and the tool results) and answers as a tutor model would, with tool
 * calls: start_lesson, optionally choose, then lesson_item and mark_goal for each open required
 * item, request_quiz (showing the question whole and ending the turn), submit_answer with the
 * student's reply in the next turn, and complete_lesson when the lesson has no required quiz.
 */
export function scriptedTutor(opts: TutorScriptOptions) {
  return (req: LlmRequest): LlmScript => {
    const msgs = req.body.messages;
    const last = msgs.at(-1);
    const results = toolResults(req);
    const started = results.find((r) => r.name === 'start_lesson' && typeof r.data.session === 'string');
    const session = started?.data.session as string | undefined;
    const quizReplies = results.filter((r) => r.name === 'request_quiz' || r.name === 'submit_answer');
    const attempt = results.find((r) => r.name === 'request_quiz')?.data.attempt as string | undefined;
    // A refused quiz call issued no question: the open one is in the last reply that carries one.
    const lastQuiz = quizReplies.filter((r) => !r.data.error).at(-1)?.data;
    const open = (lastQuiz?.question ?? lastQuiz?.next_question) as Question | undefined;

    const stepAction = (step: Step): LlmScript => {
      if (step?.kind === 'goal') {
        return {
          chunks: [`Разберём «${step.title}».`],
          toolCalls: [
            { name: 'lesson_item', arguments: { session, goal: step.goal } },
            {
              name: 'mark_goal',
              arguments: {
                session,
                goal: step.goal,
                status: 'done',
                evidence: `Ученик показал «${step.title}» на своём случае`,
              },
            },
          ],
        };
      }
      if (step?.kind === 'quiz')
        return { chunks: ['Проверим знания.'], toolCalls: [{ name: 'request_quiz', arguments: { session } }] };
      if (step?.kind === 'complete') return { toolCalls: [{ name: 'complete_lesson', arguments: { session } }] };
      return { chunks: ['Урок разобран.'] };
    };

    if (last?.role === 'user') {
      if (!session)
        return { chunks: ['Открываю урок. '], toolCalls: [{ name: 'start_lesson', arguments: opts.start }] };
      if (open && attempt) {
        const said = String(last.content ?? '').trim();
        const option = open.options.find((o) => said === o.id || said.includes(o.text) || said.startsWith(`${o.id})`));
        return {
          toolCalls: [
            {
              name: 'submit_answer',
              arguments: { attempt, question: open.id, answer: option?.id ?? said, student_words: said },
            },
          ],
        };
      }
      const marks = results.filter((r) => r.name === 'mark_goal');
      return stepAction((marks.at(-1)?.data.next_step ?? started?.data.next_step) as Step);
    }
    const lastTool = results.at(-1);
    if (!lastTool) return { chunks: ['Здравствуйте!'] };
    const error = lastTool.data.error as { code?: string; message?: string } | undefined;
    if (error) return { chunks: [`Платформа ответила отказом: ${error.code}. ${error.message ?? ''}`] };
    switch (lastTool.name) {
      case 'start_lesson':
        if (opts.choose && !results.some((r) => r.name === 'choose')) {
          return { chunks: ['Выберите, как начнём.'], toolCalls: [{ name: 'choose', arguments: opts.choose }] };
        }
        return stepAction(lastTool.data.next_step as Step);
      case 'choose':
        return { chunks: ['Жду вашего выбора.'] };
      case 'mark_goal':
        return stepAction(lastTool.data.next_step as Step);
      case 'request_quiz': {
        const q = lastTool.data.question as Question;
        if (opts.answerInSameTurn && !results.some((r) => r.name === 'submit_answer')) {
          const a = {
            attempt: lastTool.data.attempt,
            question: q.id,
            answer: opts.answerInSameTurn,
            student_words: opts.answerInSameTurn,
          };
          return { toolCalls: [{ name: 'submit_answer', arguments: a }] };
        }
        return { chunks: [questionText(q)] };
      }
      case 'submit_answer': {
        const next = lastTool.data.next_question as Question | null;
        if (next) return { chunks: [questionText(next)] };
        const result = lastTool.data.result as { passed?: boolean; score?: number } | undefined;
        return { chunks: [result?.passed ? `Квиз сдан, урок пройден! Результат: ${result.score}.` : 'Квиз не сдан.'] };
      }
      case 'complete_lesson':
        return { chunks: ['Урок закрыт. Спасибо за занятие!'] };
      default:
        return { chunks: ['Продолжим.'] };
    }
  };
}
