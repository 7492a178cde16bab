import { useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, when } from './common.ts';

interface Report {
  id: number;
  kind: string;
  lesson_title: string | null;
  objective: string | null;
  text: string;
  created_at: string;
  status: string;
  resolution: string | null;
  resolved_at: string | null;
}

const STATUS_WORDS: Record<string, string> = {
  new: 'автор ещё не смотрел',
  in_progress: 'разбирается',
  fixed: 'курс поправили',
  rejected: 'менять не будут',
  duplicate: 'правят по другому репорту',
};

/** «Мои репорты»: my_reports with the authors' answers. */
export function ReportsPage() {
  const { outcome } = useTool<{ reports: Report[] }>(api, 'my_reports', {}, 'reports');
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const { reports } = outcome.data;
  return html`<h1>Мои репорты</h1>
    <p class="muted">Что ваш агент сообщил авторам курсов с ваших занятий, и что они ответили.</p>
    ${reports.length === 0 && html`<p id="no-reports">Репортов пока нет.</p>`}
    <div id="reports">${reports.map(
      (r) => html`<article class="card report" data-report=${r.id}>
        <h2>№ ${r.id}${r.lesson_title ? ` · ${r.lesson_title}` : ''}</h2>
        <div class="badges"><span class="badge">${STATUS_WORDS[r.status] ?? r.status}</span><span class="muted">${when(r.created_at)}</span></div>
        ${r.objective && html`<p class="muted">Цель: ${r.objective}</p>`}
        <p>${r.text}</p>
        ${r.resolution && html`<div class="comment resolution"><b>Ответ автора</b> (${when(r.resolved_at)}): ${r.resolution}</div>`}
      </article>`,
    )}</div>`;
}
