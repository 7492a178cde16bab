import { useEffect, useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { plainName } from '../../web/client/text.ts';
import { api, HOMEWORK_WORDS, revealHash, spaceWords, useSpaces, when } from './common.ts';
import { ACCEPTED, base64, LIMITS, size, tooBig } from './files.ts';

interface HwFile {
  name: string;
  type: string;
  size: number;
  url: string;
}
interface Submission {
  status: string;
  due_at: string | null;
  overdue?: boolean;
  version: number | null;
  answer: string | null;
  files: HwFile[];
  events: Array<{ at: string; event: string; comment?: string | null }>;
  versions?: Array<{ version: number; status: string; answer: string | null; files: HwFile[]; submitted_at: string }>;
}
interface Mine {
  space: string;
  items: Array<{ last_comment: string | null; lesson: string }>;
  homework?: { title: string; description: string; answer_mode: string; due: string | null };
  submission?: Submission | null;
}

const MODE_WORDS: Record<string, string> = {
  text: 'текстом',
  files: 'файлами',
  both: 'текстом, файлами или тем и другим',
};

/**
 * The homework block: the task, the current answer and every version, the curator's comment, and
 * a hand-in form. One hand-in is one call and one version: text alone goes as submit_homework;
 * files, with the text when it changed, as store_homework_file (its `answer`) — the agent's own
 * operations, so a refused hand-in writes nothing.
 */
export function HomeworkBlock({ lesson }: { lesson: string }) {
  const { outcome, reload } = useTool<Mine>(api, 'my_homework', { lesson }, lesson);
  const known = useSpaces();
  // The block fills in after the page: once it has, #homework (lesson_url's anchor) is where it ends.
  useEffect(() => {
    if (outcome) revealHash();
  }, [outcome !== null]);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert" id="homework-error">${words(outcome)}</p>`;
  const { homework, submission, items, space } = outcome.data;
  if (!homework) return html`<p>У этого урока нет домашнего задания.</p>`;
  const comment = items.find((i) => i.lesson === lesson)?.last_comment ?? null;
  const accepted = submission?.status === 'Accepted';
  return html`<h3 id="homework-title">${homework.title}</h3>
    <${SpaceLine} space=${space} known=${known} />
    <p class="task">${homework.description}</p>
    <p class="muted">Сдаётся ${MODE_WORDS[homework.answer_mode] ?? homework.answer_mode}${homework.due ? ` · срок: ${homework.due}` : ''}</p>
    ${
      submission &&
      html`<div class="badges">
      <span class="badge" id="homework-status">${HOMEWORK_WORDS[submission.status] ?? submission.status}</span>
      ${submission.version !== null && html`<span class="badge" id="homework-version">версия ${submission.version}</span>`}
      ${submission.due_at && html`<span class="badge">сдать до ${when(submission.due_at)}</span>`}
      ${submission.overdue && html`<span class="badge warn">просрочено</span>`}
    </div>`
    }
    ${comment && html`<div class="comment" id="curator-comment"><b>Комментарий куратора:</b> ${comment}</div>`}
    ${
      accepted
        ? html`<p class="notice" id="homework-accepted">Куратор принял домашку — ответ закрыт для правки. Если нужно что-то изменить, попросите куратора отменить приём.</p>`
        : html`<${HandIn} lesson=${lesson} space=${space} mode=${homework.answer_mode} submission=${submission ?? null} done=${reload} />`
    }
    ${submission?.versions?.length ? html`<${Versions} versions=${submission.versions} />` : null}`;
}

/**
 * Which space the homework belongs to: my_homework answers for the space of the student's session
 * on the course, which need not be the one the switcher shows, and the hand-in goes there.
 */
function SpaceLine({ space, known }: { space: string; known: ReturnType<typeof useSpaces> }) {
  const other = known !== null && known.selected !== space;
  return html`<p class="space-line" id="homework-space" data-space=${space}>
    Домашка сдаётся в пространство ${spaceWords(space, known)}${
      other ? html` — там идёт ваше занятие по этому курсу; выбор пространства вверху страницы её не меняет.` : '.'
    }</p>`;
}

/** Why there is nothing to hand in, in words: what the page compared and what to do. */
function nothingToSend(mode: string, submission: Submission | null): string {
  if (mode === 'files') return 'Нечего сдавать: эта домашка сдаётся файлами — добавьте хотя бы один.';
  if (!submission?.version) return `Нечего сдавать: напишите ответ${mode === 'both' ? ' или добавьте файлы' : ''}.`;
  return `Нечего сдавать: текст не изменился с версии ${submission.version}${mode === 'both' ? ', и новых файлов нет' : ''}. Поправьте ответ${mode === 'both' ? ' или добавьте файлы' : ''} — тогда сохранится новая версия.`;
}

function HandIn(props: {
  lesson: string;
  space: string;
  mode: string;
  submission: Submission | null;
  done: () => void;
}) {
  const { lesson, space, mode, submission } = props;
  const [text, setText] = useState(submission?.answer ?? '');
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setText(submission?.answer ?? ''), [submission?.version]);
  const add = (list: FileList | null) => {
    if (list) setFiles((f) => [...f, ...Array.from(list)]);
    setProblem('');
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setNotice('');
    const textChanged = mode !== 'files' && text !== (submission?.answer ?? '');
    if (!files.length && !textChanged) return setProblem(nothingToSend(mode, submission));
    const big = tooBig(files);
    if (big) return setProblem(big);
    setBusy(true);
    let last: Outcome<unknown>;
    if (files.length) {
      const payload = await Promise.all(files.map(async (f) => ({ name: f.name, content: await base64(f) })));
      last = await api.call('store_homework_file', {
        lesson,
        files: payload,
        space,
        ...(textChanged ? { answer: text } : {}),
      });
    } else {
      last = await api.call('submit_homework', { lesson, answer: text, space });
    }
    setBusy(false);
    if (!last.ok) return setProblem(words(last));
    const version = (last.data as { submission: Submission }).submission.version || null;
    setFiles([]);
    setNotice(`Сдано${version ? `: версия ${version}` : ''}.`);
    props.done();
  };
  return html`<form class="hand-in" onSubmit=${submit}>
    ${
      mode !== 'files' &&
      html`<label for="answer">Ваш ответ</label>
      <p class="muted" id="answer-hint">Можно выделять **жирным**, делать списки с «- » в начале строки и вставлять ссылки.</p>
      <textarea id="answer" maxlength="100000" aria-describedby="answer-hint" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>`
    }
    ${
      mode !== 'text' &&
      html`<div id="zone" class="zone" tabindex="0"
        onDragOver=${(e: DragEvent) => e.preventDefault()}
        onDrop=${(e: DragEvent) => {
          e.preventDefault();
          add(e.dataTransfer?.files ?? null);
        }}>
        <p>Перетащите файлы сюда или <label class="pick">выберите<input id="file-input" type="file" multiple
          accept=${ACCEPTED.map((x) => `.${x}`).join(',')} onChange=${(e: Event) => add((e.target as HTMLInputElement).files)} /></label></p>
        <p class="muted">До ${LIMITS.files} файлов в ответе, каждый до 10 МБ, за раз до 30 МБ. Типы: ${ACCEPTED.join(', ')}.</p>
      </div>
      <ul class="plain" id="picked">${files.map(
        (f, i) => html`<li><bdi>${plainName(f.name)}</bdi> <span class="muted">${size(f.size)}</span>
          <button type="button" class="link" onClick=${() => setFiles(files.filter((_, j) => j !== i))}>убрать</button></li>`,
      )}</ul>`
    }
    ${submission?.files.length ? html`<p class="muted">В ответе файлов: ${submission.files.length}</p>` : null}
    <button type="submit" class="primary" id="hand-in" disabled=${busy}>${busy ? 'Сдаём…' : 'Сдать'}</button>
    ${problem && html`<p class="error" role="alert" id="hand-in-error">${problem}</p>`}
    ${notice && html`<p class="notice" role="status" id="hand-in-done">${notice}</p>`}
  </form>`;
}

function Versions({ versions }: { versions: NonNullable<Submission['versions']> }) {
  return html`<h3>Версии ответа</h3>
    <ol class="versions" id="versions" reversed>
      ${[...versions].reverse().map(
        (v) => html`<li data-version=${v.version}>
          <b>Версия ${v.version}</b> · ${HOMEWORK_WORDS[v.status] ?? v.status} · ${when(v.submitted_at)}
          ${v.answer && html`<pre class="answer">${v.answer}</pre>`}
          ${
            v.files.length > 0 &&
            html`<ul class="files">${v.files.map((f) => html`<li><a href=${f.url} class="file-name"><bdi>${plainName(f.name)}</bdi></a> <span class="muted">${size(f.size)}</span></li>`)}</ul>`
          }
        </li>`,
      )}
    </ol>`;
}
