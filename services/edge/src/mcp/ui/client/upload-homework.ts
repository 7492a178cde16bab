// The homework upload window (MCP Apps view): files dropped on the zone go to the platform past
// the model, in one store_homework_file call (one version of the answer), and the window writes
// «Сдал файлы домашнего задания…» into the conversation.
import type { App } from '@modelcontextprotocol/ext-apps';
import { byId, el, okData, openView } from './app.ts';

const MB = 1024 * 1024;
const LIMITS = { files: 10, fileBytes: 10 * MB, batchBytes: 30 * MB };
let app: App | null = null;
let lesson: string | null = null;
let space: string | null = null;
let files: File[] = [];
let sending = false;

function setStatus(text: string, kind = '') {
  byId('status').textContent = text;
  byId('status').className = kind;
}

const size = (n: number) => (n >= MB ? `${(n / MB).toFixed(1)} МБ` : `${Math.max(1, Math.round(n / 1024))} КБ`);

function problem(): string | null {
  if (files.length > LIMITS.files) return `Не больше ${LIMITS.files} файлов за раз`;
  const big = files.find((f) => f.size > LIMITS.fileBytes);
  if (big) return `Файл ${big.name} больше 10 МБ`;
  if (files.reduce((n, f) => n + f.size, 0) > LIMITS.batchBytes) return 'За раз — не больше 30 МБ';
  return null;
}

function render() {
  const list = byId('list');
  list.replaceChildren();
  files.forEach((f, i) => {
    const li = el('li');
    const remove = el('button', null, '✕');
    remove.title = 'Убрать';
    remove.onclick = () => {
      files.splice(i, 1);
      render();
    };
    li.append(el('span', null, `${f.name} — ${size(f.size)}`), remove);
    list.appendChild(li);
  });
  const p = problem();
  if (p) setStatus(p, 'error');
  else if (!sending && byId('status').className === 'error') setStatus('');
  byId<HTMLButtonElement>('submit').disabled = sending || !lesson || files.length === 0 || !!p;
}

function add(list: FileList | null) {
  for (const f of Array.from(list ?? [])) files.push(f);
  render();
}

function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

async function submit() {
  if (!app || !lesson) return;
  sending = true;
  render();
  setStatus('Отправляю…');
  try {
    const payload = [];
    for (const f of files) payload.push({ name: f.name, content: await base64(f) });
    const args: Record<string, unknown> = { lesson, files: payload };
    if (space) args.space = space;
    const result = await app.callServerTool({ name: 'store_homework_file', arguments: args });
    const data = okData<{ submission: { version: number } }>(result);
    if (result.isError || !data) {
      const first = result.content?.[0];
      setStatus(first?.type === 'text' ? first.text : 'Не получилось сдать файлы', 'error');
      return;
    }
    const names = files.map((f) => f.name);
    const version = data.submission.version;
    files = [];
    setStatus(`Сдано: версия ответа ${version}`, 'done');
    await app.sendMessage({
      role: 'user',
      content: [
        { type: 'text', text: `Сдал файлы домашнего задания: ${names.join(', ')} (версия ответа ${version}).` },
      ],
    });
  } catch (err) {
    setStatus(`Не получилось сдать файлы: ${err instanceof Error ? err.message : String(err)}`, 'error');
  } finally {
    sending = false;
    render();
  }
}

const zone = byId('zone');
zone.addEventListener('click', () => byId('picker').click());
zone.addEventListener('dragover', (e) => {
  e.preventDefault();
  zone.classList.add('over');
});
zone.addEventListener('dragleave', () => zone.classList.remove('over'));
zone.addEventListener('drop', (e) => {
  e.preventDefault();
  zone.classList.remove('over');
  add(e.dataTransfer?.files ?? null);
});
byId<HTMLInputElement>('picker').addEventListener('change', (e) => {
  const input = e.target as HTMLInputElement;
  add(input.files);
  input.value = '';
});
byId('submit').addEventListener('click', () => void submit());

void openView('upload-homework', (a) => {
  app = a;
  a.ontoolinput = (params) => {
    const input = (params.arguments ?? {}) as { lesson?: string; space?: string };
    if (!lesson && input.lesson) lesson = input.lesson;
    if (!space && input.space) space = input.space;
    render();
  };
  a.ontoolresult = (result) => {
    const data = okData<{ lesson: string; space: string; title?: string }>(result);
    const error = (result.structuredContent as { error?: { message?: string } } | undefined)?.error;
    if (data) {
      // The space is fixed when the window opens: switching spaces later does not move the submission.
      lesson = data.lesson;
      space = data.space;
      if (data.title) byId('title').textContent = `Домашнее задание: ${data.title}`;
    } else if (error?.message) {
      setStatus(error.message, 'error');
    }
    render();
  };
});
