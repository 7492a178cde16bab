import { useEffect, useState } from 'preact/hooks';
import { csrfToken, type Outcome, toSignIn, words } from '../../web/client/api.ts';
import { html } from '../../web/client/html.ts';
import { Loading, Problem } from '../../web/client/layout.ts';
import { plainName } from '../../web/client/text.ts';
import { when } from './common.ts';

interface Assistant {
  grant: string;
  name: string;
  client: string;
  scopes: Record<string, string[]>;
  created_at: string | null;
  last_used_at: string | null;
  expires_at: string | null;
}

/** What each endpoint is, in the student's words. */
const ENDPOINTS: Record<string, string> = {
  '/mcp': 'учёба',
  '/kb': 'база знаний',
  '/authoring': 'авторские инструменты',
};
const SCOPES: Record<string, string> = { read: 'видеть', write: 'действовать от вашего имени' };

/** GET or POST to the assistants API (session cookie, CSRF header on POST). */
async function request<T>(path: string, body?: Record<string, unknown>): Promise<Outcome<T>> {
  let res: Response;
  try {
    res = await fetch(`/api/student/assistants${path}`, {
      method: body ? 'POST' : 'GET',
      credentials: 'same-origin',
      headers: body ? { 'content-type': 'application/json', 'x-csrf-token': csrfToken() } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    return { ok: false, failure: 'Нет связи с сервером. Проверьте интернет и повторите.' };
  }
  if (res.status === 401) {
    toSignIn();
    return { ok: false, failure: 'Сессия закончилась: войдите заново.' };
  }
  const parsed = (await res.json().catch(() => null)) as Outcome<T> | null;
  return parsed ?? { ok: false, failure: `Сервер ответил ошибкой ${res.status}. Повторите позже.` };
}

/**
 * «Подключённые ассистенты»: every MCP client the student allowed (OAuth grants), with what it
 * may do and when it last used its access; «Отключить» ends one at once, its tokens included.
 */
export function AssistantsPage() {
  const [outcome, setOutcome] = useState<Outcome<{ assistants: Assistant[] }> | null>(null);
  const [round, setRound] = useState(0);
  const [result, setResult] = useState<Outcome<unknown> | null>(null);
  useEffect(() => {
    request<{ assistants: Assistant[] }>('').then(setOutcome);
  }, [round]);
  const revoke = async (body: Record<string, unknown>, path: string) => {
    const o = await request(path, body);
    setResult(o);
    if (o.ok) setRound((r) => r + 1);
  };
  if (!outcome) return html`<${Loading} />`;
  if (!outcome.ok) return html`<p class="error" role="alert">${words(outcome)}</p>`;
  const list = outcome.data.assistants;
  return html`<h1>Подключённые ассистенты</h1>
    <p class="muted">ИИ-ассистенты (MCP-клиенты), которым вы разрешили доступ к Studium. Выход из Studium их не отключает:
      ассистент работает, пока вы не отключите его здесь, но не дольше срока разрешения.</p>
    <p><a href="/profile">← Профиль</a></p>
    ${list.length === 0 && html`<p class="muted" id="no-assistants">Подключённых ассистентов нет.</p>`}
    <ul class="plain" id="assistants">${list.map(
      (a) => html`<li class="assistant" data-grant=${a.grant}>
        <b class="name"><bdi>${plainName(a.name)}</bdi></b> <span class="muted">(название указало само приложение)</span>
        <ul class="scopes">${Object.entries(a.scopes).map(
          ([endpoint, scopes]) =>
            html`<li>${ENDPOINTS[endpoint] ?? endpoint}: ${scopes.map((s) => SCOPES[s] ?? s).join(', ') || 'только узнать, кто вы'}</li>`,
        )}</ul>
        <p class="muted last-used">${a.last_used_at ? `Последнее использование: ${when(a.last_used_at)}` : 'Ещё не использовался'}
          ${a.created_at ? ` · подключён ${when(a.created_at)}` : ''}${a.expires_at ? ` · до ${when(a.expires_at)}` : ''}</p>
        <button type="button" class="revoke" onClick=${() => revoke({ grant: a.grant }, '/revoke')}>Отключить</button>
      </li>`,
    )}</ul>
    ${list.length > 1 && html`<button type="button" id="revoke-all" onClick=${() => revoke({}, '/revoke-all')}>Отключить всех</button>`}
    <${Problem} outcome=${result} id="assistants-problem" />`;
}
