import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading } from '../../web/client/layout.ts';
import { api, CourseTabs, NOTE_WORDS, TURN_WORDS, when } from './common.ts';

interface Note {
  note: string;
  target: string;
  label: string;
  missing: boolean;
  version: number | null;
  status: string;
  waiting_on: string | null;
  quote: string | null;
  text: string;
  author: string;
  created_at: string;
  replies: Array<{ author: string; text: string; created_at: string }>;
}

/**
 * The course's notes: «Агент спрашивает» (waiting on the author: the agent's questions, replies
 * and done work to check), the notes waiting on the agent, accepted ones, and archived notes of
 * places the active release no longer has.
 */
export function NotesPage({ course }: { course: string }) {
  const { outcome, reload } = useTool<{ notes: Note[] }>(api, 'course_notes', { course, status: null }, course);
  const head = html`<${CourseTabs} course=${course} active="notes" /><h1>Заметки</h1>`;
  if (!outcome) return html`${head}<${Loading} />`;
  if (!outcome.ok) return html`${head}<p class="error" role="alert">${words(outcome)}</p>`;
  const notes = outcome.data.notes;
  const live = notes.filter((n) => !n.missing);
  const groups: Array<[string, string, Note[]]> = [
    ['asks', 'Агент спрашивает', live.filter((n) => n.waiting_on === 'author')],
    ['agent', 'Ждут агента', live.filter((n) => n.waiting_on === 'agent')],
    ['accepted', 'Принятые', live.filter((n) => n.status === 'accepted')],
    ['archived', 'Архив: места нет в действующем релизе', notes.filter((n) => n.missing)],
  ];
  return html`${head}
    <p class="muted">Заметку ставят на место курса во вкладке «Релиз»; ваш агент видит её среди заметок курса и отвечает здесь же.</p>
    ${groups.map(
      ([id, title, list]) => html`<section id=${`notes-${id}`}>
        <h2>${title} <span class="badge">${list.length}</span></h2>
        ${list.length === 0 && html`<p class="muted">Пусто.</p>`}
        ${list.map((n) => html`<${NoteCard} key=${n.note} note=${n} onChange=${reload} />`)}
      </section>`,
    )}`;
}

function NoteCard({ note: n, onChange }: { note: Note; onChange: () => void }) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const act = async (action: 'reply' | 'accept' | 'return') => {
    const args: Record<string, unknown> = { note: n.note, action };
    if (text.trim()) args.text = text;
    const o = await api.call('review_note', args);
    setResult(o);
    if (o.ok) {
      setText('');
      onChange();
    }
  };
  return html`<article class="card note" data-note=${n.note} data-status=${n.status} data-waiting=${n.waiting_on ?? ''}>
    <h3>${n.label}</h3>
    <div class="badges"><span class="badge">${NOTE_WORDS[n.status] ?? n.status}</span>
      ${n.waiting_on && html`<span class="badge info">${TURN_WORDS[n.waiting_on]}</span>`}
      <span class="muted">${n.version ? `к версии ${n.version}, ` : ''}${when(n.created_at)}</span></div>
    ${n.quote && html`<blockquote class="quote"><span class="who-said">Цитата:</span> ${n.quote}</blockquote>`}
    <p><b>${n.author}:</b> ${n.text}</p>
    <ol class="thread">${n.replies.map((r) => html`<li><b>${r.author}</b> <span class="muted">${when(r.created_at)}</span><p>${r.text}</p></li>`)}</ol>
    ${
      n.status !== 'accepted' &&
      html`<div class="note-actions">
      <label>Ответ<textarea name="reply" rows="2" maxlength="10000" value=${text}
        onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea></label>
      <div class="row">
        <button type="button" class="act-reply" onClick=${() => act('reply')}>Ответить</button>
        <button type="button" class="act-accept primary" onClick=${() => act('accept')}>Принять</button>
        <button type="button" class="act-return" onClick=${() => act('return')}>Вернуть с ответом</button>
      </div></div>`
    }
    ${result && !result.ok && html`<p class="error" role="alert">${words(result)}</p>`}
  </article>`;
}
