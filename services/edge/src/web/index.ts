import type { Principal, ToolContract } from '@studium/contracts';
import type { Bus, Logger } from '@studium/platform';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { AuditLog } from '../audit.ts';
import type { EdgeConfig } from '../config.ts';
import type { EdgeFastify } from '../fastify.ts';
import type { HomeworkFiles } from '../mcp/homework-store.ts';
import type { CallDeps } from '../mcp/tools.ts';
import { signInThrottle } from '../signin-throttle.ts';
import type { WebAssets } from './assets.ts';
import { WebAuth } from './auth.ts';
import { esc } from './escape.ts';
import { SessionRepository } from './sessions.ts';
import { appShell, sendPage, type WebAppName } from './shell.ts';
import { registerSignIn } from './signin.ts';
import { registerToolApi } from './tool-api.ts';

export { CSRF_HEADER, type WebUser } from './auth.ts';

/** One web app (student pages, tutor, author's cabinet): its folder's routes and client. */
export interface WebAppDef {
  /** Short name: its script and stylesheet in bundles.ts, tool API at /api/<name>/tools/<tool>. */
  name: WebAppName;
  /** Page title (the tab shows «<title> — Studium»). */
  title: string;
  /** Page paths (fastify patterns); each serves the app's HTML to a signed-in user. */
  pages: string[];
  /** The tools the app's pages may call, by contract: nothing else is reachable. */
  tools: ToolContract[];
  /** Who may open the app (e.g. author roles for the cabinet); absent = every signed-in user. */
  allow?: (principal: Principal) => boolean;
  /** Text of the 403 page for a user `allow` refuses. */
  forbidden?: string;
}

export interface WebDeps {
  bus: Bus;
  db: Kysely<unknown>;
  redis: Redis;
  log: Logger;
  config: EdgeConfig;
  audit: AuditLog;
  call: CallDeps;
  files: HomeworkFiles;
  uploadBodyLimit: number;
  /** The built web assets (loadWebAssets): the pages link them, /assets/… serves them. */
  assets: WebAssets;
}

/**
 * The web pages' shared foundation: session sign-in (/login, /logout), the shared stylesheet and
 * `registerApp` for each web app. Returns the pieces an app's own extra routes need.
 */
export async function setupWeb(app: EdgeFastify, deps: WebDeps) {
  const { config } = deps;
  const ttlS = config.WEB_SESSION_TTL_H * 3600;
  const sessions = new SessionRepository(deps.db, ttlS * 1000);
  const origin = new URL(config.PUBLIC_URL).origin;
  const auth = new WebAuth(sessions, deps.bus, deps.audit, origin);
  await registerSignIn(app, {
    bus: deps.bus,
    sessions,
    auth,
    audit: deps.audit,
    // The same Redis windows as the OAuth sign-in: attempts on either page count together.
    throttle: signInThrottle(deps.redis, config),
    sessionTtlS: ttlS,
    assets: deps.assets,
    origin,
  });
  deps.assets.register(app);
  const sweep = setInterval(() => void sessions.sweep().catch(() => {}), 3_600_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  const toolDeps = {
    call: deps.call,
    files: deps.files,
    auth,
    bodyLimit: config.MCP_BODY_LIMIT_KB * 1024,
    uploadBodyLimit: deps.uploadBodyLimit,
  };
  return {
    auth,
    sessions,
    /** Registers one web app: its pages (signed-in only) and its tool API. */
    async registerApp(def: WebAppDef): Promise<void> {
      await registerToolApi(app, { ...toolDeps, auth }, def.name, def.tools, def.allow);
      for (const path of def.pages) {
        app.get(path, { onRequest: auth.page }, async (request, reply) => {
          const user = request.webUser!;
          if (def.allow && !def.allow(user.principal)) {
            return sendPage(reply, 403, forbiddenPage(deps.assets, def.forbidden ?? 'Эта страница вам недоступна.'));
          }
          // Per session (its CSRF token): kept privately, revalidated by its ETag (docs/web.md).
          return sendPage(reply, 200, appShell(deps.assets, def.name, def.title, user), 'private');
        });
      }
    },
  };
}

export type WebKit = Awaited<ReturnType<typeof setupWeb>>;

function forbiddenPage(assets: WebAssets, text: string): string {
  return `<!doctype html><html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Нет доступа — Studium</title>${assets.iconLink}<link rel="stylesheet" href="${assets.href('base.css')}"></head>
<body><main class="signin"><h1>Нет доступа</h1><p>${esc(text)}</p><p><a href="/">На главную</a></p></main></body></html>`;
}
