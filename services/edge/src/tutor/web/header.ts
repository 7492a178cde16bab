import { html } from '../../chat/web/html.ts';
import type { Item } from './api.ts';

type Topic = { key: string; text: string; status: string };
type Lesson = { title?: string; number?: number; total?: number; course_title?: string; demo_lessons_left?: number };

/** What the header shows, folded from the tool views of the conversation in order. */
export function lessonState(items: Item[]) {
  let lesson: Lesson | null = null;
  let topics: Topic[] = [];
  let passed = false;
  let exhausted: { lessons_used: number; lessons_limit: number } | null = null;
  for (const it of items) {
    if (it.role !== 'tool') continue;
    const v = it.view;
    if (v.tool === 'start_lesson' && v.demo_exhausted) exhausted = v.demo_exhausted;
    else if (v.tool === 'start_lesson') {
      lesson = v.lesson ?? null;
      topics = v.topics ?? [];
      passed = false;
    } else if (v.tool === 'mark_goal' && v.topic) {
      const topic = v.topic;
      topics = topics.map((t) => (t.key === topic.key ? { ...t, status: topic.status } : t));
    } else if (v.tool === 'submit_answer' && v.result?.passed) passed = true;
    else if (v.tool === 'complete_lesson') passed = true;
  }
  return { lesson, topics, passed, exhausted };
}

const STATUS: Record<string, string> = { covered: 'разобрана', touched: 'начата', not_started: 'впереди' };

/** The chat's header: lesson number, course, «темы урока: 2 из 5» and each topic's status. */
export function LessonHeader({ state }: { state: ReturnType<typeof lessonState> }) {
  const { lesson, topics, passed } = state;
  if (!lesson) return null;
  const covered = topics.filter((t) => t.status === 'covered').length;
  return html`<section class="lesson-head" id="lesson-head">
    <div class="lesson-line">
      <strong>Урок ${lesson.number} из ${lesson.total}</strong> · ${lesson.title}
      ${passed && html`<span class="passed" id="lesson-passed">пройден</span>`}
    </div>
    <div class="course-line">${lesson.course_title}${
      typeof lesson.demo_lessons_left === 'number' ? ` · пробных уроков осталось: ${lesson.demo_lessons_left}` : ''
    }</div>
    <details class="topics">
      <summary id="topics-progress">темы урока: ${covered} из ${topics.length}</summary>
      <ul>
        ${topics.map(
          (t) => html`<li key=${t.key} class=${`topic ${t.status}`} data-key=${t.key}>
            <span class="dot"></span>${t.text}<span class="status">${STATUS[t.status] ?? t.status}</span>
          </li>`,
        )}
      </ul>
    </details>
  </section>`;
}
