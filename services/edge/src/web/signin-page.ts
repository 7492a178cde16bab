import type { WebAssets } from './assets.ts';
import { esc } from './escape.ts';

/** The sign-in page of the web pages: a plain form, no script (works before any bundle loads). */
export function signInPage(
  assets: WebAssets,
  opts: { csrf: string; next: string; login?: string; error?: string; notice?: string },
) {
  return `<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Вход — Studium</title>${assets.iconLink}<link rel="stylesheet" href="${assets.href('base.css')}"></head>
<body class="signin-page"><main class="signin">
<h1>Вход в Studium</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ''}
<form method="post" action="/login" autocomplete="on">
<input type="hidden" name="csrf" value="${esc(opts.csrf)}"><input type="hidden" name="next" value="${esc(opts.next)}">
<label for="login">Логин (e-mail)</label>
<input id="login" name="login" type="text" required maxlength="320" value="${esc(opts.login ?? '')}" autocomplete="username">
<label for="password">Пароль</label>
<input id="password" name="password" type="password" required maxlength="200" autocomplete="current-password">
<button type="submit" id="submit">Войти</button>
</form>
<section class="no-password" id="no-password">
<h2>Нет пароля?</h2>
<p>Пароль для входа задаёт администратор платформы вашей школы или компании: напишите ему и назовите свой логин (e-mail).
Администратор задаёт пароль командой <code>studium user password &lt;логин&gt;</code>.</p>
<p>Тот же логин и пароль подходят, когда ваш ИИ-ассистент подключается к Studium по адресу: курсы, документы и выбранное пространство у сайта и ассистента общие.</p>
</section>
</main></body></html>
`;
}
