// The org_report view (MCP Apps): summary, a sortable table with progress bars, overdue rows
// highlighted. Sorting, the overdue switch and search work on the loaded rows; course and status
// ask the server again (tools/call through the host), and «Показать ещё» loads the next page.
import type { App } from '@modelcontextprotocol/ext-apps';
import { byId, el, okData, openView } from './app.ts';

interface Row {
  user: string;
  full_name: string;
  organization: string;
  course: string;
  course_title: string;
  status: string;
  progress: number;
  mandatory: boolean;
  deadline: string | null;
  overdue: boolean;
  last_activity: string | null;
  document: { blocks_total: number; blocks_filled: number };
  [key: string]: unknown;
}
interface Report {
  rows: Row[];
  organizations?: Array<{ title: string; suspended?: boolean }>;
  summary?: Record<string, number>;
  total?: number;
  next_offset?: number | null;
}

const STATUS: Record<string, string> = { not_started: 'не начат', in_progress: 'в процессе', completed: 'пройден' };
const COLUMNS: Array<[string, string, string?]> = [
  ['full_name', 'Сотрудник'],
  ['organization', 'Организация'],
  ['course_title', 'Курс'],
  ['status', 'Статус'],
  ['progress', 'Пройдено'],
  ['mandatory', 'Обяз.', 'Обязательный курс'],
  ['deadline', 'Дедлайн'],
  ['last_activity', 'Активность'],
  ['document', 'Документ'],
];
const CARDS: Array<[string, string]> = [
  ['rows', 'строк'],
  ['people', 'сотрудников'],
  ['not_started', 'не начали'],
  ['in_progress', 'в процессе'],
  ['completed', 'прошли'],
  ['overdue', 'просрочено'],
  ['mandatory_not_started', 'обязательных не начато'],
];
const state = {
  rows: [] as Row[],
  data: null as Report | null,
  sort: { key: 'full_name', dir: 1 },
  args: {} as Record<string, unknown>,
  courses: new Map<string, string>(),
};
let app: App | null = null;

const day = (iso: string | null) =>
  iso ? new Date(iso).toLocaleDateString('ru-RU', { day: '2-digit', month: '2-digit', year: '2-digit' }) : '—';

function bar(share: number, label: string) {
  const wrap = el('span');
  const b = el('span', share >= 1 ? 'bar full' : 'bar');
  const i = el('i');
  i.style.width = `${Math.round(Math.max(0, Math.min(1, share)) * 100)}%`;
  b.appendChild(i);
  wrap.append(b, el('span', 'share', label));
  return wrap;
}

function value(row: Row, key: string): string | number {
  if (key === 'document')
    return row.document.blocks_total ? row.document.blocks_filled / row.document.blocks_total : -1;
  if (key === 'status') return ['not_started', 'in_progress', 'completed'].indexOf(row.status);
  const v = row[key];
  return v === null || v === undefined ? '' : (v as string | number);
}

function compare(a: Row, b: Row) {
  const { key, dir } = state.sort;
  const x = value(a, key);
  const y = value(b, key);
  const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), 'ru');
  return c * dir || a.user.localeCompare(b.user) || a.course.localeCompare(b.course);
}

function renderHead() {
  const tr = byId('head');
  tr.replaceChildren();
  for (const [key, title, full] of COLUMNS) {
    const th = el('th', key === 'organization' ? 'col-org' : null, title);
    th.dataset.key = key;
    if (full) th.title = full;
    if (state.sort.key === key) th.setAttribute('aria-sort', state.sort.dir > 0 ? 'ascending' : 'descending');
    th.onclick = () => {
      state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 };
      render();
    };
    tr.appendChild(th);
  }
}

function renderRow(r: Row) {
  const tr = el('tr', r.overdue ? 'overdue' : '');
  tr.dataset.user = r.user;
  tr.dataset.course = r.course;
  const who = el('td', 'who');
  who.append(el('div', null, r.full_name), el('div', 'login', r.user), el('div', 'login org-inline', r.organization));
  const status = el('td');
  status.appendChild(el('span', `status ${r.status}`, STATUS[r.status] || r.status));
  const progress = el('td');
  progress.appendChild(bar(r.progress, `${Math.round(r.progress * 100)}%`));
  const doc = el('td');
  const { blocks_total: total, blocks_filled: filled } = r.document;
  doc.appendChild(total ? bar(filled / total, `${filled} из ${total}`) : el('span', 'login', '—'));
  const deadline = el('td', 'deadline date', day(r.deadline));
  if (r.overdue) deadline.appendChild(el('small', null, 'просрочен'));
  tr.append(
    who,
    el('td', 'col-org', r.organization),
    el('td', null, r.course_title),
    status,
    progress,
    el('td', 'flag', r.mandatory ? 'да' : 'нет'),
    deadline,
    el('td', 'date', day(r.last_activity)),
    doc,
  );
  return tr;
}

function render() {
  renderHead();
  const d: Partial<Report> = state.data ?? {};
  const s = d.summary ?? {};
  byId('orgs').replaceChildren(
    ...(d.organizations ?? []).map((o, i) =>
      el('span', o.suspended ? 'suspended' : '', (i ? ', ' : '') + o.title + (o.suspended ? ' (приостановлена)' : '')),
    ),
  );
  byId('cards').replaceChildren(
    ...CARDS.map(([k, label]) => {
      const c = el('div', (k === 'overdue' || k === 'mandatory_not_started') && s[k] ? 'card alert' : 'card');
      c.dataset.key = k;
      c.append(el('b', null, String(s[k] ?? 0)), el('span', null, label));
      return c;
    }),
  );
  const q = byId<HTMLInputElement>('search').value.trim().toLowerCase();
  const onlyOverdue = byId<HTMLInputElement>('overdue').checked;
  const rows = state.rows
    .filter(
      (r) =>
        (!onlyOverdue || r.overdue) &&
        (!q || r.full_name.toLowerCase().includes(q) || r.user.toLowerCase().includes(q)),
    )
    .sort(compare);
  byId('rows').replaceChildren(...rows.map(renderRow));
  byId('empty').hidden = rows.length > 0;
  byId('shown').textContent = `Показано ${rows.length} из ${d.total ?? state.rows.length}`;
  byId('more').hidden = d.next_offset === null || d.next_offset === undefined;
}

function accept(result: { structuredContent?: unknown } | undefined, append: boolean) {
  const data = okData<Report>(result);
  if (!data) return;
  state.data = data;
  state.rows = append ? state.rows.concat(data.rows) : data.rows.slice();
  for (const r of state.rows) state.courses.set(r.course, r.course_title);
  const select = byId<HTMLSelectElement>('course');
  const chosen = select.value;
  const all = el('option', null, 'все курсы') as HTMLOptionElement;
  all.value = '';
  select.replaceChildren(all);
  for (const [id, title] of [...state.courses].sort((a, b) => a[1].localeCompare(b[1], 'ru'))) {
    const o = el('option', null, title) as HTMLOptionElement;
    o.value = id;
    select.appendChild(o);
  }
  select.value = chosen;
  render();
}

async function load(append: boolean) {
  if (!app) return;
  const args: Record<string, unknown> = { ...state.args, limit: 500 };
  if (append) args.offset = state.data?.next_offset;
  document.body.dataset.loading = '1';
  try {
    accept(await app.callServerTool({ name: 'org_report', arguments: args }), append);
  } finally {
    delete document.body.dataset.loading;
  }
}

function refilter() {
  state.args = {};
  const course = byId<HTMLSelectElement>('course').value;
  const status = byId<HTMLSelectElement>('status').value;
  if (course) state.args.course = course;
  if (status) state.args.status = status;
  void load(false);
}

byId('course').onchange = refilter;
byId('status').onchange = refilter;
byId('overdue').onchange = render;
byId('search').oninput = render;
byId('more').onclick = () => void load(true);
render();

void openView('org-report', (a) => {
  app = a;
  a.ontoolinput = (params) => {
    state.args = { ...(params.arguments ?? {}) };
  };
  a.ontoolresult = (result) => accept(result, false);
});
