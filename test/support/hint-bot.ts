import { type AgentClient, data, type ToolResult } from './clients.ts';

/** A tool call the bot made and what came back. */
export interface BotStep {
  tool: string;
  args: Record<string, unknown>;
  result: ToolResult;
}

type Call = { tool: string; args: Record<string, unknown> };

/** Tools a hint may name as the call to make (`tool {json}`). */
const HINTED = ['start_lesson', 'enroll', 'my_homework', 'request_quiz', 'complete_lesson', 'submit_homework'];

/** The first call a `next` phrase names as `tool {"arg": …}`; null when it names none. */
export function hintedCall(next: unknown): Call | null {
  if (typeof next !== 'string') return null;
  const m = new RegExp(`\\b(${HINTED.join('|')}) (\\{[^{}]*\\})`).exec(next);
  if (!m) return null;
  return { tool: m[1] as string, args: JSON.parse(m[2] as string) as Record<string, unknown> };
}

type Question = { id: string; options: Array<{ id: string; text: string }> };

/**
 * A student's agent that knows nothing but the hints: it makes `first`, then each call the last
 * reply names — next_step (goal → mark_goal with evidence, quiz → request_quiz, complete →
 * complete_lesson), the next question of a quiz (answered by `answer`), the closing's next_lesson
 * (start_lesson, without arguments when there is none) — and where next_step is null or an attempt
 * failed, the call the `next` phrase names; after a refusal, the call its message names. It stops
 * when `stop` says so, when no call is named, or after `max` calls.
 */
export async function followHints(
  agent: AgentClient,
  first: Call,
  opts: { answer: (question: Question) => string; stop?: (step: BotStep) => boolean; max?: number },
): Promise<BotStep[]> {
  const steps: BotStep[] = [];
  let call: Call | null = first;
  let session: string | null = null;
  let attempt: string | null = null;
  while (call && steps.length < (opts.max ?? 40)) {
    const result = await agent.callTool(call.tool, call.args);
    const step = { tool: call.tool, args: call.args, result };
    steps.push(step);
    if (opts.stop?.(step)) break;
    if (result.isError) {
      // A refusal's message may name the way on (nothing_to_study does); otherwise it ends here.
      const error = (result.structuredContent as { error?: { message?: string } } | undefined)?.error;
      call = hintedCall(error?.message);
      continue;
    }
    const d = data(result);
    if (typeof d.session === 'string') session = d.session;
    if (typeof d.attempt === 'string') attempt = d.attempt;
    call = nextCall(call.tool, d, { session, attempt }, opts.answer);
  }
  return steps;
}

function nextCall(
  tool: string,
  d: Record<string, unknown>,
  at: { session: string | null; attempt: string | null },
  answer: (q: Question) => string,
): Call | null {
  const question = (d.question ?? d.next_question) as Question | null | undefined;
  if ((tool === 'request_quiz' || tool === 'submit_answer') && question) {
    const option = answer(question);
    const words = question.options.find((o) => o.id === option)?.text ?? option;
    return {
      tool: 'submit_answer',
      args: { attempt: at.attempt, question: question.id, answer: option, student_words: words },
    };
  }
  if (tool === 'start_lesson' || tool === 'mark_goal') {
    const step = d.next_step as { kind: string; goal?: string; title?: string } | null;
    if (!step) return hintedCall(d.next);
    if (step.kind === 'goal') {
      const evidence = `Ученица показала «${step.title}» на своей задаче`;
      return { tool: 'mark_goal', args: { session: at.session, goal: step.goal, status: 'done', evidence } };
    }
    return { tool: step.kind === 'quiz' ? 'request_quiz' : 'complete_lesson', args: { session: at.session } };
  }
  const closed = tool === 'complete_lesson' ? d : (d.result as Record<string, unknown> | undefined);
  if (tool === 'complete_lesson' || (tool === 'submit_answer' && closed?.passed === true)) {
    // The closing rules: offer the next lesson — start_lesson opens it.
    const next = closed?.next_lesson as { id: string } | null | undefined;
    return { tool: 'start_lesson', args: next ? { lesson: next.id } : {} };
  }
  if (tool === 'submit_answer') return hintedCall(d.next);
  return null;
}
