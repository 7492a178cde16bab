import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs, StudentText, when } from './common.ts';

interface Report {
  id: number;
  kind: string;
  text: string;
  created_at: string;
  lesson_key: string | null;
  lesson_title?: string | null;
  objective?: string | null;
  question_key?: string | null;
  status: string;
  resolution: string | null;
  resolved_at: string | null;
}

const KINDS = ['stuck', 'misconception', 'material_issue', 'quiz_question_issue', 'directive_mismatch', 'out_of_scope'];
const KIND_WORDS: Record<string, string> = {
  stuck: 'ученик застрял',
  misconception: 'заблуждение',
  material_issue: 'ошибка в материале',
  quiz_question_issue: 'вопрос квиза',
  directive_mismatch: 'расхождение с указаниями',
  out_of_scope: 'вне курса',
};
const STATUSES = ['open', 'new', 'in_progress', 'fixed', 'rejected', 'duplicate'];
export const REPORT_WORDS: Record<string, string> = {
  new: 'новый',
  in_progress: 'в работе',
  fixed: 'исправлено',
  rejected: 'отклонён',
  duplicate: 'дубль',
};

/** The active release's lessons, objectives and questions in words, for the filter and the cards. */
interface Names {
  lessons: Array<{ key: string; title: string }>;
  objectives: Map<string, string>;
  questions: Map<string, string>;
}

type ReleaseLessons = {
  lessons: Array<{
    key: string;
    title: string;
    objectives: Array<{ key: string; text: string }>;
    questions: Array<{ key: string; text: string }>;
  }>;
};

function namesOf(outcome: Outcome<ReleaseLessons> | null): Names {
  const lessons = outcome?.ok ? outcome.data.lessons : [];
  return {
    lessons: lessons.map((l) => ({ key: l.key, title: l.title })),
    objectives: new Map(lessons.flatMap((l) => l.objectives.map((o) => [o.key, o.text] as const))),
    questions: new Map(lessons.flatMap((l) => l.questions.map((q) => [q.key, q.text] as const))),
  };
}

/** The course's reports by lesson, kind and status (course_reports), answered with resolve_report. */
export function ReportsPage({ course }: { course: string }) {
  // A course without a release has no lessons to name: the filter then offers none.
  const names = namesOf(useTool<ReleaseLessons>(api, 'course_release', { course }, `names:${course}`).outcome);
  const [filter, setFilter] = useState({ status: 'open', kind: '', lesson: '' });
  const args: Record<string, unknown> = { course, status: filter.status || undefined };
  if (filter.kind) args.kind = filter.kind;
  if (filter.lesson.trim()) args.lesson = filter.lesson.trim();
  const { outcome, reload } = useTool<{ reports: Report[] }>(api, 'course_reports', args, JSON.stringify(args));
  const pick = (key: 'status' | 'kind' | 'lesson') => (e: Event) =>
    setFilter({ ...filter, [key]: (e.target as HTMLInputElement).value });
  return html`<${CourseTabs} course=${course} active="reports" /><h1>Репорты</h1>
    <form class="row filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Статус <select name="status" value=${filter.status} onChange=${pick('status')}>
        <option value="">все</option>${STATUSES.map((s) => html`<option value=${s}>${s === 'open' ? 'открытые' : REPORT_WORDS[s]}</option>`)}</select></label>
      <label>Вид <select name="kind" value=${filter.kind} onChange=${pick('kind')}>
        <option value="">все</option>${KINDS.map((k) => html`<option value=${k}>${KIND_WORDS[k]}</option>`)}</select></label>
      <label>Урок <select name="lesson" value=${filter.lesson} onChange=${pick('lesson')}>
        <option value="">все</option>${names.lessons.map((l) => html`<option value=${l.key}>${l.title}</option>`)}</select></label>
    </form>
    ${!outcome && html`<${Loading} />`}
    ${outcome && !outcome.ok && html`<p class="error" role="alert">${words(outcome)}</p>`}
    ${outcome?.ok && outcome.data.reports.length === 0 && html`<p id="no-reports">Репортов нет.</p>`}
    ${outcome?.ok && outcome.data.reports.map((r) => html`<${ReportCard} key=${r.id} report=${r} names=${names} onChange=${reload} />`)}`;
}

function ReportCard({ report: r, names, onChange }: { report: Report; names: Names; onChange: () => void }) {
  const lesson = r.lesson_title ?? names.lessons.find((l) => l.key === r.lesson_key)?.title ?? r.lesson_key;
  // The agent passes an objective as its key from the lesson map or in words: words either way.
  const objective = r.objective ? (names.objectives.get(r.objective) ?? r.objective) : null;
  const question = r.question_key ? (names.questions.get(r.question_key) ?? null) : null;
  const [status, setStatus] = useState('fixed');
  const [resolution, setResolution] = useState(r.resolution ?? '');
  const [duplicateOf, setDuplicateOf] = useState('');
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const send = async (e: Event) => {
    e.preventDefault();
    const args: Record<string, unknown> = { report: r.id, status };
    if (resolution.trim()) args.resolution = resolution;
    if (status === 'duplicate') args.duplicate_of = duplicateOf.trim();
    const o = await api.call('resolve_report', args);
    setResult(o);
    if (o.ok) onChange();
  };
  return html`<article class="card report" data-report=${r.id} data-status=${r.status}>
    <h2>№ ${r.id} · ${KIND_WORDS[r.kind] ?? r.kind}</h2>
    <div class="badges"><span class="badge">${REPORT_WORDS[r.status] ?? r.status}</span>
      ${lesson && html`<span class="muted">урок «${lesson}»</span>`}
      ${objective && html`<span class="muted">цель «${objective}»</span>`}
      ${r.question_key && html`<span class="muted">${question ? `вопрос «${question}»` : 'вопрос квиза, снятый релизом'}</span>`}
      <span class="muted">${when(r.created_at)}</span></div>
    <${StudentText} text=${r.text} label="Репорт со слов ученика" />
    ${r.resolution && html`<p class="resolution"><b>Ответ</b> (${when(r.resolved_at)}): ${r.resolution}</p>`}
    <form class="resolve" onSubmit=${send}>
      <div class="row"><label>Статус <select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        ${['in_progress', 'fixed', 'rejected', 'duplicate'].map((s) => html`<option value=${s}>${REPORT_WORDS[s]}</option>`)}</select></label>
        ${status === 'duplicate' && html`<label>Дубль № <input name="duplicate_of" maxlength="20" value=${duplicateOf} onInput=${(e: Event) => setDuplicateOf((e.target as HTMLInputElement).value)} /></label>`}</div>
      <label>Ответ ученику<textarea name="resolution" rows="2" maxlength="10000" value=${resolution}
        onInput=${(e: Event) => setResolution((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <button type="submit" class="primary">Сохранить</button>
      ${result && !result.ok && html`<p class="error" role="alert">${words(result)}</p>`}
    </form>
  </article>`;
}
