import { useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading, Problem } from '../../web/client/layout.ts';
import { api, when } from './common.ts';

interface Note {
  key: string;
  text: string;
  created_at: string;
  updated_at: string;
}

/** The canonical profile keys (contracts' PROFILE_KEYS), in the order and words of the page. */
export const PROFILE: Array<[string, string]> = [
  ['role', 'Роль'],
  ['industry', 'Отрасль'],
  ['company', 'Компания'],
  ['goal', 'Цель обучения'],
  ['current_task', 'Текущая задача'],
  ['background', 'Опыт'],
  ['tools', 'Инструменты'],
  ['learning_style', 'Как удобнее учиться'],
  ['time_budget', 'Сколько времени есть'],
];

/** The profile: the canonical facts (remember, kind fact), and every other note with forget. */
export function ProfilePage() {
  const { outcome, reload } = useTool<{ facts: Note[] }>(api, 'my_notes', {}, 'notes');
  // Shown whatever my_notes answers: the assistants are the edge's, not the notes service's.
  const assistants = html`<p><a href="/profile/assistants" id="to-assistants">Подключённые ассистенты</a> — какие ИИ-ассистенты подключены к Studium от вашего имени; там же их можно отключить.</p>`;
  if (!outcome) return html`<${Loading} />${assistants}`;
  if (!outcome.ok) return html`<h1>Профиль</h1><p class="error" role="alert">${words(outcome)}</p>${assistants}`;
  const facts = new Map(outcome.data.facts.map((f) => [f.key, f]));
  const others = outcome.data.facts.filter((f) => !PROFILE.some(([k]) => k === f.key));
  return html`<h1>Профиль</h1>
    <p class="muted">Это видит ваш агент на каждом занятии. Агент сам дополняет профиль по ходу уроков; здесь его можно поправить.</p>
    ${assistants}
    <div id="profile">${PROFILE.map(
      ([key, label]) =>
        html`<${Field} key=${`${key}:${facts.get(key)?.updated_at ?? ''}`} name=${key} label=${label} note=${facts.get(key)} done=${reload} />`,
    )}</div>
    <h2>Что ещё запомнено</h2>
    ${others.length === 0 && html`<p class="muted" id="no-notes">Других заметок нет.</p>`}
    <ul class="plain" id="notes">${others.map((n) => html`<${OtherNote} key=${n.key} note=${n} done=${reload} />`)}</ul>`;
}

function Field(props: { name: string; label: string; note?: Note; done: () => void }) {
  const [value, setValue] = useState(props.note?.text ?? '');
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const o = value.trim()
      ? await api.call('remember', { kind: 'fact', key: props.name, text: value.trim() })
      : props.note
        ? await api.call('forget', { key: props.name })
        : null;
    setResult(o);
    if (o?.ok) props.done();
  };
  return html`<form class="profile-field" data-key=${props.name} onSubmit=${save}>
    <label for=${`p-${props.name}`}>${props.label}</label>
    <div class="row">
      <input type="text" id=${`p-${props.name}`} maxlength="10000" value=${value}
        onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
      <button type="submit" id=${`save-${props.name}`}>Сохранить</button>
    </div>
    ${props.note && html`<p class="muted">обновлено ${when(props.note.updated_at)}</p>`}
    <${Problem} outcome=${result} />
  </form>`;
}

function OtherNote({ note, done }: { note: Note; done: () => void }) {
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const drop = async () => {
    const o = await api.call('forget', { key: note.key });
    setResult(o);
    if (o.ok) done();
  };
  return html`<li data-key=${note.key}><b>${note.key}</b>: ${note.text}
    <button type="button" class="forget" onClick=${drop}>Забыть</button><${Problem} outcome=${result} /></li>`;
}
