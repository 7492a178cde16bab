/** The sign-in, consent and sign-out pages of the authorization server (Russian, no scripts). */

export function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} — Studium</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.55rem 1.2rem;font-size:1rem}.error{color:#a4161a}.muted{color:#5b6275;font-size:.9rem}
ul{padding-left:1.2rem}li{margin:.3rem 0}
</style></head><body>${body}</body></html>`;
}

/** What each scope allows at each endpoint, in plain words (the endpoints' tools differ). */
export const SCOPE_WORDS: Record<string, Record<string, string>> = {
  '/mcp': {
    read: 'видеть ваши курсы, уроки, прогресс и каталог',
    write:
      'действовать от вашего имени как ученик: записываться на курсы, проходить уроки и квизы, сдавать домашние работы',
  },
  '/authoring': {
    read: 'видеть ваши курсы как автора: релизы, заметки, отчёты и ответы учеников',
    write:
      'действовать от вашего имени как автор: проверять домашние работы, вести заметки и отвечать на отчёты по курсам',
  },
  '/kb': {
    read: 'читать вашу базу знаний: проекты, заметки и поиск по ним',
    write: 'писать в вашу базу знаний: создавать и менять заметки и связи между ними',
  },
};

/** "At most N days" (hours, minutes) in Russian, rounded up so that the bound holds. */
function atMost(seconds: number): string {
  const [n, one, many] =
    seconds >= 86_400
      ? [Math.ceil(seconds / 86_400), 'дня', 'дней']
      : seconds >= 3600
        ? [Math.ceil(seconds / 3600), 'часа', 'часов']
        : [Math.ceil(seconds / 60), 'минуты', 'минут'];
  return `не дольше ${n} ${n % 10 === 1 && n % 100 !== 11 ? one : many}`;
}

/**
 * The "stay connected" line: the client refreshes its access without asking again, within the
 * grant's lifetime. Signing out does not end it (docs/decisions.md, «Sign-out and assistants»).
 */
function stayConnected(s: NonNullable<ConsentView['staysConnected']>): string {
  return `И оставаться подключённым: обновлять доступ, не спрашивая вас снова, ${atMost(s.ttlS)}.`;
}

/** What ends the access, on the consent page and both sign-out pages (one wording). */
export const DISCONNECT_WORDS =
  'Выход из Studium подключённых приложений не отключает: отключить приложение можно в любой момент в профиле, на странице «Подключённые ассистенты», или попросив администратора платформы.';

/** One resource an authorization request names: its endpoint (`/mcp`, `/authoring`, `/kb`) and URL. */
export interface ConsentResource {
  endpoint: string;
  resource: string;
}

/** What the consent page says about the request (all of it from the client, except `user`). */
export interface ConsentView {
  uid: string;
  /** The client's own client_name (anyone can register any name), or its client_id. */
  clientName: string;
  user: string;
  scopes: string[];
  /** Every resource the request names, in its order (the first endpoint when it names none). */
  resources: ConsentResource[];
  /** Where the authorization code will be sent: the redirect URI's host. */
  redirectHost: string;
  /** Set when the client will get a refresh token: the grant's lifetime, seconds. Null when it gets none. */
  staysConnected: { ttlS: number } | null;
}

function clientLines(v: Pick<ConsentView, 'clientName' | 'redirectHost'>): string {
  return `<p>Приложение <b>${esc(v.clientName)}</b> <span class="muted">(название указало само приложение)</span></p>
<p>Код доступа будет отправлен на адрес: <b id="redirect-host">${esc(v.redirectHost)}</b></p>
<p class="muted">Разрешайте, только если узнаёте этот адрес.</p>`;
}

export function loginPage(uid: string, clientName: string, error?: string, login = ''): string {
  return page(
    'Вход',
    `<h1>Вход в Studium</h1>
<p>Приложение <b>${esc(clientName)}</b> <span class="muted">(название указало само приложение)</span> просит доступ к вашему аккаунту.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/signin/${esc(uid)}/login" autocomplete="on">
<label for="login">Логин (e-mail)</label><input id="login" name="login" type="text" required value="${esc(login)}" autocomplete="username">
<label for="password">Пароль</label><input id="password" name="password" type="password" required autocomplete="current-password">
<button type="submit" id="submit">Войти</button>
</form>
<form method="post" action="/signin/${esc(uid)}/abort"><button type="submit" id="cancel">Отмена</button></form>
<p class="muted">Пароль задаёт администратор платформы.</p>`,
  );
}

/**
 * Each resource gets the requested scopes (every resource serves the same ones), worded for its
 * endpoint; staying connected (offline_access) is one grant for all of them.
 */
export function consentPage(v: ConsentView): string {
  const lists = v.resources
    .map(({ endpoint, resource }) => {
      const words = SCOPE_WORDS[endpoint] ?? {};
      const items = v.scopes
        .map((sc) => words[sc])
        .filter(Boolean)
        .map((w) => `<li>${esc(w as string)}</li>`)
        .join('');
      return `<p class="resource">В <b>${esc(resource)}</b>:</p>
<ul class="scopes" data-resource="${esc(resource)}">${items || '<li>только узнать, кто вы</li>'}</ul>`;
    })
    .join('\n');
  const stay = v.staysConnected ? `<p id="offline">${esc(stayConnected(v.staysConnected))}</p>` : '';
  return page(
    'Разрешение',
    `<h1>Разрешить доступ?</h1>
${clientLines(v)}
<p>Оно сможет от имени <b>${esc(v.user)}</b>:</p>
${lists}
${stay}
<p class="muted" id="disconnect">${esc(DISCONNECT_WORDS)}</p>
<form method="post" action="/signin/${esc(v.uid)}/consent"><button type="submit" id="allow">Разрешить</button></form>
<form method="post" action="/signin/${esc(v.uid)}/abort"><button type="submit" id="deny">Отказать</button></form>`,
  );
}

/** The authoring endpoint asked for by a user who is no author: nothing to allow, only go back. */
export function authorRequiredPage(v: ConsentView): string {
  const authoring = (v.resources.find((r) => r.endpoint === '/authoring') ?? v.resources[0])?.resource ?? '';
  return page(
    'Нет доступа',
    `<h1>Доступ к авторским инструментам недоступен</h1>
${clientLines(v)}
<p class="error" role="alert">У учётной записи <b>${esc(v.user)}</b> нет роли автора, поэтому доступ к ${esc(authoring)} выдать нельзя.</p>
<form method="post" action="/signin/${esc(v.uid)}/abort"><button type="submit" id="deny">Вернуться в приложение</button></form>`,
  );
}

/** The sign-out confirmation (`form` is oidc-provider's hidden form) or, with null, its result. */
export function logoutPage(form: string | null): string {
  const note = `<p class="muted" id="disconnect">${esc(DISCONNECT_WORDS)}</p>`;
  if (form === null) return page('Выход', `<h1>Вы вышли из Studium</h1><p>Окно можно закрыть.</p>${note}`);
  return page(
    'Выход',
    `<h1>Выйти из Studium?</h1>${note}${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" id="logout">Выйти</button>
<button type="submit" form="op.logoutForm" id="stay">Остаться</button>`,
  );
}

export function pageError(error: string, description: string): string {
  return page(
    'Ошибка',
    `<h1>Не получилось войти</h1><p>Попробуйте подключиться заново из вашего приложения.</p>
<p class="muted">${esc(error)}${description ? `: ${esc(description)}` : ''}</p>`,
  );
}
