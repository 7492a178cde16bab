import { useEffect, useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs, courseHistory, type ReleaseRow, ScrollBox, when } from './common.ts';

interface CourseItem {
  course: string;
  title: string;
  summary: string;
  published: boolean;
  upcoming: boolean;
  course_key: string | null;
  release: { release?: string; version: number; published_at: string } | null;
  lessons: number;
}

function state(c: CourseItem): string {
  if (c.published && !c.upcoming) return 'открыт ученикам';
  return c.upcoming ? 'анонс' : 'не открыт';
}

/** Courses of the platform (list_courses) with their active release. */
export function CoursesPage() {
  const { outcome } = useTool<{ courses: CourseItem[] }>(api, 'list_courses', {}, 'courses');
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  return html`<h1>Кабинет автора</h1>
    <p class="muted">Курсы платформы. Откройте курс: релиз, заметки, репорты, прохождения, тестеры.</p>
    <div id="courses">${outcome.data.courses.map(
      (c) => html`<article class="card" data-course=${c.course}>
        <h2><a href=${`/cabinet/courses/${encodeURIComponent(c.course)}`}>${c.title}</a></h2>
        <div class="badges"><span class="badge">${state(c)}</span>
          ${c.release ? html`<span class="badge info">версия ${c.release.version}</span>` : html`<span class="badge warn">без релиза</span>`}
          <span class="muted">уроков: ${c.lessons}</span></div>
        ${c.release && html`<p class="muted">Действующая версия ${c.release.version} опубликована ${when(c.release.published_at)}</p>`}
      </article>`,
    )}</div>`;
}

/** One course: its title and release history (version, commit, digest; the active one marked). */
export function CoursePage({ course }: { course: string }) {
  const [outcome, setOutcome] = useState<Outcome<{ title?: string; releases: ReleaseRow[] }> | null>(null);
  useEffect(() => {
    courseHistory(course).then(setOutcome);
  }, [course]);
  return html`<${CourseTabs} course=${course} active="" />
    <h1 id="course-title">${outcome?.ok ? (outcome.data.title ?? 'Курс') : 'Курс'}</h1>
    ${!outcome && html`<${Loading} />`}
    ${outcome && !outcome.ok && html`<p class="error" role="alert">${words(outcome)}</p>`}
    ${
      outcome?.ok &&
      html`<h2>История релизов</h2>
      ${outcome.data.releases.length === 0 && html`<p>Релизов ещё нет.</p>`}
      <${ScrollBox} label="История релизов"><table id="releases">
        <thead><tr><th scope="col">Версия</th><th scope="col">Опубликован</th><th scope="col">Кто</th><th scope="col">Коммит</th><th scope="col">Отпечаток</th></tr></thead>
        <tbody>${outcome.data.releases.map(
          (r) => html`<tr class=${r.active ? 'active-release' : ''} data-release=${r.release}>
            <td>${r.version}${r.active ? ' (действует)' : ''}</td><td>${when(r.published_at)}</td><td>${r.published_by}</td>
            <td><code>${r.commit ?? '—'}</code></td><td><code title=${r.digest}>${r.digest.slice(0, 12)}</code></td></tr>`,
        )}</tbody></table></${ScrollBox}>`
    }`;
}
