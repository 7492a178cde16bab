import { useEffect } from 'preact/hooks';
import { useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, OBJECTIVE_WORDS, revealHash } from './common.ts';
import { HomeworkBlock } from './homework.ts';
import { courseOfLesson, type Outline } from './outline.ts';

/** The lesson page (lesson_url of my_homework): hook, goals with statuses, the homework block. */
export function LessonPage({ lesson }: { lesson: string }) {
  const course = courseOfLesson(lesson);
  const { outcome } = useTool<Outline>(api, 'course_outline', { course }, lesson);
  useEffect(() => {
    if (outcome) revealHash();
  }, [outcome !== null]);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<h1>Урок</h1><p class="error" role="alert" id="lesson-error">${words(outcome)}</p>`;
  const found = outcome.data.chapters.flatMap((c) => c.lessons).find((l) => l.id === lesson);
  if (!found) return html`<h1>Урок</h1><p class="error" role="alert" id="lesson-error">В курсе нет такого урока.</p>`;
  return html`<p class="muted"><a href=${`/courses/${encodeURIComponent(course)}`}>${outcome.data.title ?? 'Курс'}</a></p>
    <h1 id="lesson-title">${found.title}</h1>
    <div class="badges">${found.completed ? html`<span class="badge ok">урок пройден</span>` : found.current && html`<span class="badge info">текущий урок</span>`}</div>
    ${found.hook && html`<p class="hook">${found.hook}</p>`}
    <p><a id="tutor-link" href=${`/tutor?lesson=${encodeURIComponent(lesson)}`}>Заниматься с репетитором в веб-чате</a></p>
    <h2>Цели урока</h2>
    <ul class="plain goals" id="goals">
      ${found.objectives.map(
        (o) =>
          html`<li data-goal=${o.key}>${o.text} <span class=${`badge status-${o.status}`}>${OBJECTIVE_WORDS[o.status] ?? o.status}</span></li>`,
      )}
    </ul>
    <section id="homework" class="card">
      <h2>Домашнее задание</h2>
      ${found.homework ? html`<${HomeworkBlock} lesson=${lesson} />` : html`<p>У этого урока нет домашнего задания.</p>`}
    </section>`;
}
