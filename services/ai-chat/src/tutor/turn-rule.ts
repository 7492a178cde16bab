import type { TutorToolCall } from '@studium/contracts';

/** The refusal a submit_answer gets when its question was issued in the same turn. */
export const SAME_TURN_REFUSAL = JSON.stringify({
  error: {
    code: 'answer_in_next_turn',
    message:
      'Вопрос выдан в этом ходе: ответ на него передаётся только в следующем ходе, после реплики ученика. Покажите вопрос и дождитесь ответа.',
  },
});

/**
 * Spec 000, the quiz in the web chat: «вопрос, выданный в ходе модели, получает ответ только в
 * следующем ходе, после реплики ученика». A question is issued by request_quiz, or by a
 * submit_answer whose reply carries the next one. A round's calls are checked before any runs,
 * so a submit_answer after a request_quiz or another submit_answer of the same round is refused too.
 */
export class TurnRule {
  private issued = false;

  /** The calls of one round this rule refuses, by call id, with their refusal. */
  checkRound(calls: TutorToolCall[]): Map<string, string> {
    const refused = new Map<string, string>();
    let issued = this.issued;
    for (const call of calls) {
      if (call.name === 'submit_answer' && issued) refused.set(call.id, SAME_TURN_REFUSAL);
      else if (call.name === 'request_quiz' || call.name === 'submit_answer') issued = true;
    }
    return refused;
  }

  /** After a round's results: a question was issued when a quiz reply carries one. */
  saw(name: string, content: string): void {
    if (name !== 'request_quiz' && name !== 'submit_answer') return;
    try {
      const reply = JSON.parse(content) as { question?: unknown; next_question?: unknown };
      if (reply.question || reply.next_question) this.issued = true;
    } catch {
      // A failure text issued no question.
    }
  }
}
