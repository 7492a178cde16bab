import { useState } from 'preact/hooks';
import { useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs, ITEM_KIND_WORDS, ScrollBox, StudentText, when } from './common.ts';

interface Goal {
  key: string;
  title?: string;
  kind?: string;
  status: string;
  evidence: string | null;
  marked_at: string | null;
  removed?: boolean;
}
interface Run {
  student: { id: string; name: string };
  lesson: { key: string; title: string | null };
  status: string;
  started_at: string | null;
  passed_at: string | null;
  resume_from: string | null;
  objectives: Array<{
    key: string;
    text?: string;
    status: string;
    quiz_confirmed: boolean;
    removed?: boolean;
    goals: Goal[];
  }>;
}
/** pass_counts: every run of the course counted, not one page. */
interface Counts {
  lessons: Array<{
    key: string;
    title: string;
    runs: number;
    passed: number;
    goals: Array<{ key: string; title: string; done: number }>;
  }>;
}

interface Page {
  runs: Run[];
  has_more: boolean;
  start: number;
  limit: number;
}

const PAGE = 20;
const OBJECTIVE_WORDS: Record<string, string> = { not_started: 'не начата', touched: 'начата', covered: 'разобрана' };
const GOAL_WORDS: Record<string, string> = {
  open: 'не отмечен',
  done: 'разобран',
  planned: 'запланирован',
  not_needed: 'не нужен',
};
const RUN_WORDS: Record<string, string> = {
  not_started: 'не начат',
  in_progress: 'идёт',
  covered: 'разобран',
  passed: 'пройден',
};

/**
 * Passes: per lesson, how many students (all of them: pass_counts) reached each goal item; then
 * goal_runs' page of runs, where
 * each one stopped, and the evidence — the students' words, quoted. Only the course's instructors
 * and staff see them (goal_runs' own rule: anyone else gets 403, in the journal).
 */
export function PassesPage({ course }: { course: string }) {
  const [lesson, setLesson] = useState('');
  const [start, setStart] = useState(0);
  const args: Record<string, unknown> = { course, start, limit: PAGE };
  if (lesson) args.lesson = lesson;
  const { outcome } = useTool<Page>(api, 'goal_runs', args, JSON.stringify(args));
  // Every lesson's counts: the lesson filter offers the course's lessons by title from them.
  const counts = useTool<Counts>(api, 'pass_counts', { course }, course).outcome;
  const all = counts?.ok ? counts.data.lessons : [];
  const head = html`<${CourseTabs} course=${course} active="passes" /><h1>Прохождения</h1>
    <form class="row" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Урок <select name="lesson" value=${lesson}
        onChange=${(e: Event) => {
          setLesson((e.target as HTMLSelectElement).value);
          setStart(0);
        }}><option value="">все уроки</option>${all.map((l) => html`<option value=${l.key}>${l.title}</option>`)}</select></label></form>`;
  if (!outcome) return html`${head}<${Loading} />`;
  if (!outcome.ok) return html`${head}<p class="error" role="alert" id="passes-error">${words(outcome)}</p>`;
  const { runs, has_more } = outcome.data;
  const lessons = all.filter((l) => l.runs > 0 && (!lesson || l.key === lesson));
  return html`${head}
    <h2>Сколько учеников дошли до пункта</h2>
    <${ScrollBox} label="Сколько учеников дошли до пункта"><table id="reached"><tbody>${lessons.map(
      (l) => html`<tr class="lesson"><th scope="row">${l.title}</th><td>начали ${l.runs}, прошли ${l.passed}</td></tr>
        ${l.goals.map((g) => html`<tr data-goal=${`${l.key}/${g.key}`}><td>${g.title}</td><td>засчитан у ${g.done}</td></tr>`)}`,
    )}</tbody></table></${ScrollBox}>
    ${runs.length === 0 && html`<p>Прохождений нет.</p>`}
    ${runs.map(
      (run) => html`<article class="card run" data-student=${run.student.id} data-lesson=${run.lesson.key}>
        <h3>${run.student.name} · ${run.lesson.title ?? run.lesson.key}</h3>
        <div class="badges"><span class="badge">${RUN_WORDS[run.status] ?? run.status}</span>
          ${run.resume_from && html`<span class="badge warn">остановился на ${run.resume_from}</span>`}
          <span class="muted">начат ${when(run.started_at)}${run.passed_at ? `, пройден ${when(run.passed_at)}` : ''}</span></div>
        ${run.objectives.map(
          (
            o,
          ) => html`<div class="objective" data-objective=${o.key}><p><b>${o.text ?? 'Цель'}</b> — ${OBJECTIVE_WORDS[o.status] ?? o.status}${o.quiz_confirmed ? ', подтверждена квизом' : ''}${o.removed ? ' (снята релизом)' : ''}</p>
            <ul class="plain">${o.goals.map(
              (
                g,
              ) => html`<li data-goal=${g.key}>${g.kind ? html`<span class="badge">${ITEM_KIND_WORDS[g.kind] ?? g.kind}</span> ` : ''}${g.title ?? 'Пункт'} — ${GOAL_WORDS[g.status] ?? g.status}${g.removed ? ' (снят релизом)' : ''}
                <${StudentText} text=${g.evidence} label="Свидетельство" /></li>`,
            )}</ul></div>`,
        )}
      </article>`,
    )}
    <div class="row pager">
      <button type="button" disabled=${start === 0} onClick=${() => setStart(Math.max(0, start - PAGE))}>Назад</button>
      <button type="button" id="next-page" disabled=${!has_more} onClick=${() => setStart(start + PAGE)}>Дальше</button>
    </div>`;
}
