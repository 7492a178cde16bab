import { useEffect, useState } from 'preact/hooks';
import { type Outcome, useTool, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading, Problem } from '../../web/client/layout.ts';
import { api } from './common.ts';

interface Column {
  key: string;
  title: string;
  required: boolean | { if_column: string };
}
interface Block {
  key: string;
  title: string;
  description: string;
  rows: 'many' | 'one';
  columns: Column[];
  items?: Array<Record<string, string> & { id: string }>;
  values?: Record<string, string>;
  filled: boolean;
}
interface Doc {
  key: string;
  title: string;
  description?: string;
  blocks: Block[];
}

/** «Мои документы»: every document of every course of the selected space, filled by hand with update_artifact. */
export function DocumentsPage() {
  const { outcome } = useTool<{ space: string; courses: Array<{ course: string; title: string }> }>(
    api,
    'list_my_courses',
    {},
    'docs',
  );
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const { courses, space } = outcome.data;
  return html`<h1>Мои документы</h1>
    <p class="muted">Документы пространства «${space === 'personal' ? 'личное' : space}». Их заполняют с агентом или здесь, вручную.</p>
    ${courses.length === 0 && html`<p>Курсов в этом пространстве нет — и документов тоже.</p>`}
    ${courses.map((c) => html`<${CourseDocs} key=${c.course} course=${c.course} title=${c.title} space=${space} />`)}`;
}

function CourseDocs({ course, title, space }: { course: string; title: string; space: string }) {
  const { outcome } = useTool<{ artifacts: Array<{ key: string }> }>(api, 'artifact', { course, space }, course);
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok)
    return html`<section class="course-docs"><h2>${title}</h2><p class="error">${words(outcome)}</p></section>`;
  if (!outcome.data.artifacts?.length) return null;
  return html`<section class="course-docs" data-course=${course}>
    <h2>${title}</h2>
    ${outcome.data.artifacts.map((a) => html`<${Document} key=${a.key} course=${course} artifact=${a.key} space=${space} />`)}
  </section>`;
}

function Document({ course, artifact, space }: { course: string; artifact: string; space: string }) {
  const [doc, setDoc] = useState<Outcome<{ artifact: Doc }> | null>(null);
  const load = () => api.call<{ artifact: Doc }>('artifact', { course, artifact, space }).then(setDoc);
  useEffect(() => void load(), [course, artifact]);
  if (!doc) return html`<${Loading} />`;
  if (!doc.ok) return html`<p class="error">${words(doc)}</p>`;
  const d = doc.data.artifact;
  const write = (key: string, args: Record<string, unknown>) =>
    api.call('update_artifact', { course, artifact, key, space, ...args }).then((o) => {
      if (o.ok) void load();
      return o;
    });
  return html`<article class="card document" data-artifact=${artifact}>
    <h3>${d.title}</h3>
    ${d.description && html`<p class="muted">${d.description}</p>`}
    ${d.blocks.map((b) => html`<${BlockView} key=${b.key} block=${b} write=${(args: Record<string, unknown>) => write(b.key, args)} />`)}
  </article>`;
}

type Write = (args: Record<string, unknown>) => Promise<Outcome<unknown>>;

const mark = (c: Column) => (c.required === true ? ' *' : typeof c.required === 'object' ? ' (*)' : '');

function BlockView({ block: b, write }: { block: Block; write: Write }) {
  return html`<section class="block" data-block=${b.key}>
    <h4>${b.title} ${b.filled ? html`<span class="badge ok">готов</span>` : html`<span class="badge">не готов</span>`}</h4>
    <p class="muted description">${b.description}</p>
    ${b.rows === 'many' ? html`<${Rows} block=${b} write=${write} />` : html`<${Fields} block=${b} write=${write} />`}
    <p class="muted">* — обязательно; (*) — обязательно, когда заполнена связанная колонка.</p>
  </section>`;
}

function Fields({ block: b, write }: { block: Block; write: Write }) {
  const [values, setValues] = useState<Record<string, string>>(b.values ?? {});
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const changed = Object.fromEntries(
      b.columns.map((c) => [c.key, values[c.key] ?? '']).filter(([k, v]) => v !== (b.values?.[k] ?? '')),
    );
    setResult(await write({ fields: changed }));
  };
  return html`<form class="fields" onSubmit=${save}>
    ${b.columns.map(
      (c) => html`<label for=${`f-${b.key}-${c.key}`}>${c.title}${mark(c)}</label>
        <textarea class="cell" rows="2" id=${`f-${b.key}-${c.key}`} name=${c.key} value=${values[c.key] ?? ''}
          onInput=${(e: Event) => setValues({ ...values, [c.key]: (e.target as HTMLTextAreaElement).value })}></textarea>`,
    )}
    <button type="submit" class="save">Сохранить раздел</button>
    <${Problem} outcome=${result} />
  </form>`;
}

function Rows({ block: b, write }: { block: Block; write: Write }) {
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const act = async (args: Record<string, unknown>) => {
    const o = await write(args);
    setResult(o);
    if (o.ok) setDraft({});
  };
  return html`<div class="table"><table>
      <thead><tr><th>ID</th>${b.columns.map((c) => html`<th>${c.title}${mark(c)}</th>`)}<th></th></tr></thead>
      <tbody>
        ${(b.items ?? []).map((row) => html`<${RowEdit} key=${row.id} row=${row} columns=${b.columns} act=${act} />`)}
        <tr class="new-row">
          <td>новая</td>
          ${b.columns.map(
            (
              c,
            ) => html`<td><textarea class="cell" rows="1" name=${c.key} aria-label=${c.title} value=${draft[c.key] ?? ''}
              onInput=${(e: Event) => setDraft({ ...draft, [c.key]: (e.target as HTMLTextAreaElement).value })}></textarea></td>`,
          )}
          <td><button type="button" class="add-row" onClick=${() => act({ rows: [Object.fromEntries(Object.entries(draft).filter(([, v]) => v))] })}>Добавить</button></td>
        </tr>
      </tbody></table></div>
    <${Problem} outcome=${result} />`;
}

function RowEdit(props: {
  row: Record<string, string> & { id: string };
  columns: Column[];
  act: (a: Record<string, unknown>) => Promise<void>;
}) {
  const { row, columns, act } = props;
  const [cells, setCells] = useState<Record<string, string>>(row);
  const changed = Object.fromEntries(
    columns.map((c) => [c.key, cells[c.key] ?? '']).filter(([k, v]) => v !== (row[k] ?? '')),
  );
  return html`<tr data-row=${row.id}>
    <td>${row.id}</td>
    ${columns.map(
      (c) => html`<td><textarea class="cell" rows="1" name=${c.key} aria-label=${c.title} value=${cells[c.key] ?? ''}
        onInput=${(e: Event) => setCells({ ...cells, [c.key]: (e.target as HTMLTextAreaElement).value })}></textarea></td>`,
    )}
    <td class="row-actions">
      <button type="button" class="save-row" disabled=${Object.keys(changed).length === 0} onClick=${() => act({ rows: [{ id: row.id, ...changed }] })}>Сохранить</button>
      <button type="button" class="delete-row" onClick=${() => act({ delete_rows: [row.id] })}>Удалить</button>
    </td>
  </tr>`;
}
