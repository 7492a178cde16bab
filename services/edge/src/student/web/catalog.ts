import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading, Problem } from '../../web/client/layout.ts';
import { api, type Programs } from './common.ts';
import { ProgramLine } from './programs.ts';

interface CatalogCourse extends Programs {
  course: string;
  title: string;
  summary: string;
  upcoming: boolean;
  objectives?: string[];
  notify?: boolean;
  /** A course not open yet that an author gave the student to test. */
  testing?: boolean;
}

/** The catalog: enroll, or for an announcement its objectives and «сообщить о выходе». */
export function CatalogPage() {
  const { outcome, reload } = useTool<{ courses: CatalogCourse[] }>(api, 'list_catalog', {}, 'catalog');
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  return html`<h1>Каталог</h1>
    ${outcome.data.courses.length === 0 && html`<p>В каталоге этого пространства пока нет курсов.</p>`}
    <div id="catalog">${outcome.data.courses.map((c) => html`<${Entry} key=${c.course} course=${c} reload=${reload} />`)}</div>`;
}

function Entry({ course: c, reload }: { course: CatalogCourse; reload: () => void }) {
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (tool: string, args: Record<string, unknown>, then: (o: Outcome<unknown>) => void) => {
    setBusy(true);
    const o = await api.call(tool, args);
    setBusy(false);
    setResult(o);
    then(o);
  };
  const enroll = () =>
    act('enroll', { course: c.course }, (o) => {
      const first = o.ok ? (o.data as { first_lesson: { id: string } | null }).first_lesson : null;
      if (o.ok)
        location.href = first ? `/lessons/${encodeURIComponent(first.id)}` : `/courses/${encodeURIComponent(c.course)}`;
    });
  const notify = () => act('notify_when_released', { course: c.course, notify: !c.notify }, (o) => o.ok && reload());
  return html`<article class="card catalog-course" data-course=${c.course}>
    <h2>${c.title}</h2>
    ${c.upcoming && html`<div class="badges"><span class="badge info">анонс</span></div>`}
    ${
      c.testing &&
      html`<div class="badges"><span class="badge warn">тестирование</span></div>
      <p class="muted">Курс ещё не открыт ученикам: автор дал вам доступ, чтобы пройти его раньше всех.</p>`
    }
    <p>${c.summary}</p>
    ${
      c.upcoming &&
      html`<h3>Цели курса</h3><ul class="objectives">${(c.objectives ?? []).map((o) => html`<li>${o}</li>`)}</ul>`
    }
    <${ProgramLine} course=${c} />
    <div class="row">
      ${
        c.upcoming
          ? html`<button class="notify" disabled=${busy} onClick=${notify}>${c.notify ? 'Не сообщать о выходе' : 'Сообщить о выходе'}</button>
            ${c.notify && html`<span class="notice">Пришлём письмо, когда курс откроют.</span>`}`
          : html`<button class="primary enroll" disabled=${busy} onClick=${enroll}>Записаться</button>`
      }
    </div>
    <${Problem} outcome=${result} />
  </article>`;
}
