import { useEffect, useState } from 'preact/hooks';
import { codeOf, type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, OBJECTIVE_WORDS } from './common.ts';
import type { Outline } from './outline.ts';
import { ProgramLine } from './programs.ts';

/** The course page: course_outline; an announcement (no outline) shows only its objectives. */
export function CoursePage({ course }: { course: string }) {
  const { outcome } = useTool<Outline>(api, 'course_outline', { course }, course);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<${NotOpen} course=${course} refused=${outcome} />`;
  const o = outcome.data;
  return html`<h1 id="course-title">${o.title ?? o.course}</h1>
    <${ProgramLine} course=${{ programs: o.programs ?? [], locked_by: o.locked_by }} />
    <p><a id="tutor-link" href=${`/tutor?course=${encodeURIComponent(o.course)}`}>Заниматься с репетитором в веб-чате</a></p>
    ${o.chapters.map(
      (ch) => html`<section class="chapter">
        <h2>${ch.title}</h2>
        ${ch.description && html`<p class="muted">${ch.description}</p>`}
        <p class="muted">Начато уроков: ${ch.lessons_started}, пройдено: ${ch.lessons_completed} из ${ch.lessons.length}</p>
        ${ch.lessons.map(
          (l) => html`<article class="card lesson" data-lesson=${l.id}>
            <h3><a href=${`/lessons/${encodeURIComponent(l.id)}`}>${l.title}</a></h3>
            <div class="badges">
              ${l.completed && html`<span class="badge ok">пройден</span>`}
              ${l.current && html`<span class="badge info">текущий</span>`}
            </div>
            <ul class="plain goals">${l.objectives.map(
              (g) =>
                html`<li>${g.text} <span class=${`badge status-${g.status}`}>${OBJECTIVE_WORDS[g.status] ?? g.status}</span></li>`,
            )}</ul>
            ${
              l.blocks.length > 0 &&
              html`<p class="muted">Разделы документа: ${l.blocks.map((b) => b.title).join(', ')} · <a href="/documents">Мои документы</a></p>`
            }
            ${
              l.homework &&
              html`<p>Домашнее задание: <a href=${`/lessons/${encodeURIComponent(l.id)}#homework`}>${l.homework.title}</a></p>`
            }
          </article>`,
        )}
      </section>`,
    )}`;
}

interface Announced {
  course: string;
  title: string;
  summary: string;
  upcoming: boolean;
  objectives?: string[];
}

/** A course without an outline for this student: an announcement shows its objectives, else the refusal. */
function NotOpen({ course, refused }: { course: string; refused: Outcome<unknown> }) {
  const [announced, setAnnounced] = useState<Announced | null | undefined>(undefined);
  useEffect(() => {
    api
      .call<{ courses: Announced[] }>('list_catalog')
      .then((o) => setAnnounced(o.ok ? (o.data.courses.find((c) => c.course === course && c.upcoming) ?? null) : null));
  }, [course]);
  if (announced === undefined) return html`<${Loading} />`;
  if (!announced)
    return html`<h1>Курс</h1><p class="error" role="alert" id="course-error" data-code=${codeOf(refused)}>${words(refused)}</p>`;
  return html`<h1 id="course-title">${announced.title}</h1>
    <div class="badges"><span class="badge info">анонс</span></div>
    <p>${announced.summary}</p>
    <h2>Цели курса</h2>
    <ul class="objectives" id="announced-objectives">${(announced.objectives ?? []).map((o) => html`<li>${o}</li>`)}</ul>
    <p class="muted">Программа, уроки и документы откроются с выходом курса. <a href="/catalog">Сообщить о выходе</a></p>`;
}
