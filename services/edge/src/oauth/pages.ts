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
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.55rem 1.2rem;font-size:1rem}.error{color:#a4161a}.muted{color:#5b6275;font-size:.9rem}
ul{padding-left:1.2rem}li{margin:.3rem 0}
</style></head><body>${body}</body></html>`;
}

/** What each scope allows, in plain words. */
export const SCOPE_WORDS: Record<string, string> = {
  read: 'видеть ваши курсы, уроки, прогресс и каталог',
  write: 'действовать от вашего имени: записываться на курсы, проходить уроки и квизы, менять учебное пространство',
  offline_access: 'оставаться подключённым, пока вы не отзовёте доступ',
};

export function loginPage(uid: string, clientName: string, error?: string, login = ''): string {
  return page(
    'Вход',
    `<h1>Вход в Studium</h1>
<p>Приложение <b>${esc(clientName)}</b> просит доступ к вашему аккаунту.</p>
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

export function consentPage(uid: string, clientName: string, user: string, scopes: string[], resource: string): string {
  const items = scopes
    .filter((s) => SCOPE_WORDS[s])
    .map((s) => `<li>${esc(SCOPE_WORDS[s] as string)}</li>`)
    .join('');
  return page(
    'Разрешение',
    `<h1>Разрешить доступ?</h1>
<p>Приложение <b>${esc(clientName)}</b> сможет от имени <b>${esc(user)}</b>:</p>
<ul>${items || '<li>только узнать, кто вы</li>'}</ul>
<p class="muted">Адрес: ${esc(resource)}. Отозвать доступ может администратор платформы.</p>
<form method="post" action="/signin/${esc(uid)}/consent"><button type="submit" id="allow">Разрешить</button></form>
<form method="post" action="/signin/${esc(uid)}/abort"><button type="submit" id="deny">Отказать</button></form>`,
  );
}

/** The sign-out confirmation (`form` is oidc-provider's hidden form) or, with null, its result. */
export function logoutPage(form: string | null): string {
  if (form === null) return page('Выход', '<h1>Вы вышли из Studium</h1><p>Окно можно закрыть.</p>');
  return page(
    'Выход',
    `<h1>Выйти из Studium?</h1>${form}
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
