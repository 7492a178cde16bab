import { useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, type Programs, spaceWords, useSpaces, when } from './common.ts';
import { ProgramLine } from './programs.ts';

interface MyCourse extends Programs {
  course: string;
  title: string;
  organization: string | null;
  mandatory: boolean | null;
  deadline: string | null;
  overdue: boolean;
  lessons_total: number;
  lessons_completed: number;
  next_lesson: { id: string; title: string } | null;
  testing?: boolean;
}

/** «Мои курсы»: list_my_courses of the selected space. */
export function CoursesPage() {
  const { outcome } = useTool<{ space: string; courses: MyCourse[] }>(api, 'list_my_courses', {}, 'mine');
  const known = useSpaces();
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const { courses, space } = outcome.data;
  return html`<h1>Мои курсы</h1>
    <p class="muted" id="space-name">Пространство: ${spaceWords(space, known)}</p>
    ${courses.length === 0 && html`<p id="no-courses">Курсов пока нет. Выберите курс в <a href="/catalog">каталоге</a>.</p>`}
    <div id="my-courses">
      ${courses.map((c) => {
        const pct = c.lessons_total ? Math.round((100 * c.lessons_completed) / c.lessons_total) : 0;
        return html`<article class="card course" data-course=${c.course}>
          <h2><a href=${`/courses/${encodeURIComponent(c.course)}`}>${c.title}</a></h2>
          <div class="badges">
            ${c.testing && html`<span class="badge warn">тестирование: курс ещё не открыт</span>`}
            ${c.mandatory && html`<span class="badge info">обязательный</span>`}
            ${c.deadline && html`<span class="badge">срок: ${when(c.deadline)}</span>`}
            ${c.overdue && html`<span class="badge warn">просрочен</span>`}
          </div>
          <div class="progress" aria-hidden="true"><span style=${`width:${pct}%`}></span></div>
          <p class="muted">Пройдено уроков: ${c.lessons_completed} из ${c.lessons_total}</p>
          ${
            c.next_lesson &&
            html`<p>Следующий урок: <a href=${`/lessons/${encodeURIComponent(c.next_lesson.id)}`}>${c.next_lesson.title}</a></p>`
          }
          <${ProgramLine} course=${c} />
        </article>`;
      })}
    </div>`;
}
