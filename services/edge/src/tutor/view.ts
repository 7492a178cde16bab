/**
 * What the tutor page shows of a tool's result: the header (lesson number, topics and their
 * statuses), the quiz question whole, the quiz result, the buttons of choose, the trial limit.
 * Only these fields leave for the page: directive, material and the rest are for the model.
 */
export type PageView = Record<string, unknown> & { tool: string };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);

/** The page's view of a tool result (the JSON the model read), or null when the page shows nothing of it. */
export function pageView(tool: string, content: string): PageView | null {
  let reply: Obj | null;
  try {
    reply = obj(JSON.parse(content));
  } catch {
    return null;
  }
  if (!reply) return null;
  const error = obj(reply.error);
  if (error) {
    // The trial limit is the one refusal the student is told about; the model handles the rest.
    if (tool === 'start_lesson' && error.code === 'web_demo_exhausted') {
      return { tool, demo_exhausted: { lessons_used: error.lessons_used, lessons_limit: error.lessons_limit } };
    }
    return null;
  }
  switch (tool) {
    case 'start_lesson': {
      const lesson = obj(reply.lesson) ?? {};
      const map = Array.isArray(reply.lesson_map) ? reply.lesson_map : [];
      return {
        tool,
        session: reply.session,
        lesson: {
          id: lesson.id,
          title: lesson.title,
          number: lesson.number,
          total: lesson.total,
          course_title: lesson.course_title,
          demo_lessons_left: lesson.demo_lessons_left,
        },
        topics: map.map((o) => ({ key: obj(o)?.key, text: obj(o)?.text, status: obj(o)?.status })),
      };
    }
    case 'mark_goal': {
      const objective = obj(reply.objective);
      return objective ? { tool, topic: { key: objective.key, status: objective.status } } : null;
    }
    case 'request_quiz':
      return { tool, question: reply.question };
    case 'submit_answer':
      return { tool, verdict: reply.verdict, question: reply.next_question ?? null, result: reply.result ?? null };
    case 'complete_lesson':
      return { tool, completed: true, lesson_status: reply.status ?? reply.lesson_status ?? null };
    case 'choose':
      return { tool, prompt: reply.prompt, options: reply.options, title: reply.title ?? null };
    default:
      return null;
  }
}
