import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { plainName } from '../../web/client/text.ts';
import { api, StudentText, when } from './common.ts';

interface Item {
  submission: string;
  course: string;
  course_title?: string;
  lesson: string;
  lesson_key: string;
  lesson_title?: string;
  student: string;
  student_name?: string | null;
  space: string;
  status: string;
  version: number | null;
  submitted_at: string | null;
  due_at: string | null;
}
interface File {
  name: string;
  type: string;
  size: number;
  url: string;
}
interface Submission extends Item {
  answer: string | null;
  files: File[];
  last_comment: string | null;
  events: Array<{ at: string; event: string; comment?: string | null }>;
  versions: Array<{ version: number; status: string; answer: string | null; files: File[]; submitted_at: string }>;
}

const STATUSES = ['Submitted', 'Returned', 'Accepted', 'Assigned'];
const EVENT_WORDS: Record<string, string> = {
  assigned: 'выдано',
  submitted: 'сдано',
  returned: 'возвращено',
  accepted: 'принято',
  acceptance_cancelled: 'приём отменён',
};
const WORDS: Record<string, string> = {
  Submitted: 'ждёт проверки',
  Returned: 'возвращена',
  Accepted: 'принята',
  Assigned: 'не сдана',
};

/** A person's name, the login beside it when the name is known (it may be all there is). */
function Student({ item }: { item: Pick<Item, 'student' | 'student_name'> }) {
  const name = item.student_name?.trim();
  return name && name !== item.student
    ? html`<span class="student">${name} <span class="muted">(${item.student})</span></span>`
    : html`<span class="student">${item.student}</span>`;
}

/** «Курс · урок» in titles, keys only where the reply has no title. */
const placeOf = (i: Item) => `${i.course_title ?? i.course} · ${i.lesson_title ?? i.lesson_key}`;

/** A course the filter offers: the queue names the ones you review, whatever the filter. */
type CourseChoice = { course: string; title: string };

/** The review queue (homework_queue), by status and by one of the courses you review. */
export function HomeworkQueuePage() {
  const [status, setStatus] = useState('Submitted');
  const [course, setCourse] = useState('');
  const args: Record<string, unknown> = { status };
  if (course) args.course = course;
  const { outcome } = useTool<{ items: Item[]; has_more: boolean; courses?: CourseChoice[] }>(
    api,
    'homework_queue',
    args,
    JSON.stringify(args),
  );
  const choices = outcome?.ok ? (outcome.data.courses ?? []) : [];
  return html`<h1>Домашки на проверку</h1>
    <form class="row" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Статус <select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
        ${STATUSES.map((s) => html`<option value=${s}>${WORDS[s]}</option>`)}</select></label>
      <label>Курс <select name="course" value=${course} onChange=${(e: Event) => setCourse((e.target as HTMLSelectElement).value)}>
        <option value="">все мои курсы</option>
        ${choices.map((c) => html`<option value=${c.course}>${c.title}</option>`)}</select></label>
    </form>
    ${!outcome && html`<${Loading} />`}
    ${outcome && !outcome.ok && html`<p class="error" role="alert">${words(outcome)}</p>`}
    ${outcome?.ok && outcome.data.items.length === 0 && html`<p id="no-homework">Сдач нет.</p>`}
    ${
      outcome?.ok &&
      html`<div id="queue">${outcome.data.items.map(
        (i) => html`<article class="card" data-submission=${i.submission}>
        <h2><a href=${`/cabinet/homework/${encodeURIComponent(i.submission)}`}>${placeOf(i)}</a></h2>
        <div class="badges"><span class="badge">${WORDS[i.status] ?? i.status}</span><${Student} item=${i} />
          ${i.version !== null && html`<span class="muted">версия ${i.version}</span>`}<span class="muted">${when(i.submitted_at)}</span></div>
      </article>`,
      )}</div>`
    }`;
}

/** Safe link targets only: the service's own download URLs (http(s) or this site). */
const safeUrl = (u: string) => (/^(https?:\/\/|\/)/.test(u) ? u : '#');

function Files({ files }: { files: File[] }) {
  if (!files.length) return null;
  return html`<ul class="plain files">${files.map((f) => html`<li><a href=${safeUrl(f.url)} rel="noopener noreferrer" class="file-name"><bdi>${plainName(f.name)}</bdi></a> <span class="muted">${f.type}, ${f.size} байт</span></li>`)}</ul>`;
}

/** One submission: versions, files, journal; accept / return / cancel acceptance with a comment. */
export function SubmissionPage({ submission }: { submission: string }) {
  const { outcome, reload } = useTool<Submission>(api, 'homework_submission', { submission }, submission);
  const [comment, setComment] = useState('');
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const s = outcome.data;
  const act = async (tool: string) => {
    const args: Record<string, unknown> = { submission };
    if (comment.trim()) args.comment = comment;
    const o = await api.call(tool, args);
    setResult(o);
    if (o.ok) {
      setComment('');
      reload();
    }
  };
  return html`<p class="crumbs muted"><a href="/cabinet/homework">Домашки</a></p>
    <h1>Домашка: ${placeOf(s)}</h1>
    <div class="badges" id="submission-status" data-status=${s.status}><span class="badge">${WORDS[s.status] ?? s.status}</span>
      <${Student} item=${s} /><span class="muted">${s.space === 'personal' ? 'личное пространство' : `пространство ${s.space}`}</span>${s.due_at && html`<span class="muted">срок ${when(s.due_at)}</span>`}</div>
    <${StudentText} text=${s.answer} label="Ответ ученика" />
    <${Files} files=${s.files} />
    ${s.last_comment && html`<p class="comment"><b>Последний комментарий:</b> ${s.last_comment}</p>`}
    <form class="review" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Комментарий ученику<textarea name="comment" rows="3" maxlength="10000" value=${comment}
        onInput=${(e: Event) => setComment((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <div class="row">
        ${
          s.status === 'Submitted' &&
          html`<button type="button" class="primary" id="accept" onClick=${() => act('accept_homework')}>Принять</button>
          <button type="button" id="return" onClick=${() => act('return_homework')}>Вернуть на доработку</button>`
        }
        ${s.status === 'Accepted' && html`<button type="button" id="cancel" onClick=${() => act('cancel_acceptance')}>Отменить приём</button>`}
      </div>
      ${result && !result.ok && html`<p class="error" role="alert">${words(result)}</p>`}
    </form>
    <h2>Версии</h2>
    ${s.versions.map(
      (
        v,
      ) => html`<article class="card version" data-version=${v.version}><h3>Версия ${v.version} · ${WORDS[v.status] ?? v.status} · ${when(v.submitted_at)}</h3>
      <${StudentText} text=${v.answer} label="Ответ ученика" /><${Files} files=${v.files} /></article>`,
    )}
    <h2>Журнал</h2>
    <ol class="thread">${s.events.map((e) => html`<li><span class="muted">${when(e.at)}</span> ${EVENT_WORDS[e.event] ?? e.event}${e.comment ? html`: ${e.comment}` : ''}</li>`)}</ol>`;
}
