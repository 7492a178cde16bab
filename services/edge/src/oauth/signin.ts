import { timingSafeEqual } from 'node:crypto';
import { isAuthor, resolveUser, verifyPassword } from '@studium/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeFastify } from '../fastify.ts';
import { parseForms, sendHtml } from '../forms.ts';
import type { OAuthRouteDeps } from './deps.ts';
import { authorRequiredPage, type ConsentView, consentPage, loginPage, pageError } from './pages.ts';
import { issuesRefreshToken } from './provider.ts';
import { redirectHost } from './redirect.ts';

function form(request: FastifyRequest): Record<string, string> {
  return (request.body ?? {}) as Record<string, string>;
}

/** Equal strings, compared in constant time (the interaction uid is a bearer-like value). */
function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The sign-in, consent and sign-out pages of the authorization server. `endpointOf` names the
 * endpoint path a resource indicator asks for (null when it names none of them).
 */
export async function registerSignin(
  app: EdgeFastify,
  deps: OAuthRouteDeps,
  endpointOf: (indicator: string) => string | null,
): Promise<void> {
  const { provider } = deps;
  const firstPath = Object.keys(deps.resources)[0] as string;
  await app.register(async (scope) => {
    parseForms(scope, 8192);
    const html = (reply: FastifyReply, status: number, body: string) =>
      sendHtml(
        reply,
        status,
        body,
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
      );
    const details = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const interaction = await provider.interactionDetails(request.raw, reply.raw);
        const client = await provider.Client.find(String(interaction.params.client_id));
        return {
          interaction,
          clientName: client?.clientName ?? String(interaction.params.client_id),
          refresh: client ? issuesRefreshToken(client) : false,
        };
      } catch {
        return null;
      }
    };
    const expired = (reply: FastifyReply) =>
      html(reply, 400, pageError('interaction_expired', 'страница входа устарела, начните подключение заново'));
    const finish = async (request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>) => {
      const to = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
      return reply.code(303).header('location', to).send();
    };

    /** What the consent page shows, and whether the user may grant the endpoint asked for. */
    const consentView = async (d: NonNullable<Awaited<ReturnType<typeof details>>>) => {
      const { interaction, clientName, refresh } = d;
      const p = interaction.params;
      // Every resource the request names (it may name several), each worded on the page; any of
      // them being /authoring needs the author role.
      const named = (Array.isArray(p.resource) ? p.resource : p.resource ? [p.resource] : []).map(String);
      const found = named.map(endpointOf).filter((e): e is string => e !== null);
      const endpoints = found.length ? [...new Set(found)] : [firstPath];
      const user = String(interaction.session?.accountId);
      // oidc-provider has already dropped offline_access unless the client may refresh and the
      // request said prompt=consent; what is left is what the grant will hold.
      const scopes = String(p.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const view: ConsentView = {
        uid: interaction.uid,
        clientName,
        user,
        scopes,
        resources: endpoints.map((endpoint) => ({ endpoint, resource: deps.resources[endpoint] as string })),
        redirectHost: redirectHost(String(p.redirect_uri ?? '')),
        staysConnected: refresh ? { ttlS: deps.refreshTokenTtlS } : null,
      };
      if (!endpoints.includes('/authoring')) return { view, allowed: true as boolean | null };
      const who = await deps.bus
        .request(resolveUser, null, { user, scope: 'read', issued_at: Math.floor(Date.now() / 1000) })
        .catch(() => null);
      if (!who) return { view, allowed: null };
      return { view, allowed: who.ok && isAuthor(who.data.principal.roles) };
    };
    const unavailable = (reply: FastifyReply) =>
      html(reply, 503, pageError('temporarily_unavailable', 'сервис входа сейчас недоступен, попробуйте позже'));

    scope.get<{ Params: { uid: string } }>('/signin/:uid', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || !same(d.interaction.uid, request.params.uid)) return expired(reply);
      if (d.interaction.prompt.name === 'login') return html(reply, 200, loginPage(d.interaction.uid, d.clientName));
      const { view, allowed } = await consentView(d);
      if (allowed === null) return unavailable(reply);
      return allowed ? html(reply, 200, consentPage(view)) : html(reply, 403, authorRequiredPage(view));
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/login', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || !same(d.interaction.uid, request.params.uid) || d.interaction.prompt.name !== 'login')
        return expired(reply);
      const { login = '', password = '' } = form(request);
      const user = login.trim().slice(0, 320);
      const outcome = await deps.throttle.guard(user, request.ip, async () => {
        const result = await deps.bus
          .request(verifyPassword, null, { login: user, password: password.slice(0, 200) })
          .catch(() => null);
        return { wrongPassword: result?.ok === false, value: result };
      });
      if ('refused' in outcome) {
        reply.header('retry-after', String(outcome.refused));
        return html(
          reply,
          429,
          loginPage(
            d.interaction.uid,
            d.clientName,
            `Слишком много попыток входа. Повторите через ${outcome.refused} с.`,
            user,
          ),
        );
      }
      const result = outcome.value;
      if (!result) {
        return html(
          reply,
          503,
          loginPage(d.interaction.uid, d.clientName, 'Сервис входа сейчас недоступен. Попробуйте позже.', user),
        );
      }
      if (!result.ok) {
        void deps.audit.record({
          kind: 'oauth_login_failed',
          user: user || null,
          endpoint: 'oauth',
          detail: { ip: request.ip },
        });
        return html(reply, 401, loginPage(d.interaction.uid, d.clientName, 'Неверный логин или пароль.', user));
      }
      return finish(request, reply, { login: { accountId: result.data.user } });
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/consent', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || !same(d.interaction.uid, request.params.uid) || d.interaction.prompt.name !== 'consent')
        return expired(reply);
      // The page offered nothing to allow to a non-author asking for /authoring; a hand-made POST neither.
      const { view, allowed } = await consentView(d);
      if (allowed === null) return unavailable(reply);
      if (!allowed) return html(reply, 403, authorRequiredPage(view));
      const { interaction } = d;
      const accountId = String(interaction.session?.accountId);
      const clientId = String(interaction.params.client_id);
      const grant = interaction.grantId
        ? ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId }))
        : new provider.Grant({ accountId, clientId });
      const missing = interaction.prompt.details as {
        missingOIDCScope?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, scopes.join(' '));
      }
      const grantId = await grant.save();
      await deps.audit.record({
        kind: 'oauth_grant',
        user: accountId,
        endpoint: 'oauth',
        detail: { client: clientId, grantId, resources: missing.missingResourceScopes ?? {} },
      });
      return finish(request, reply, { consent: { grantId } });
    });

    scope.post<{ Params: { uid: string } }>('/signin/:uid/abort', async (request, reply) => {
      const d = await details(request, reply);
      if (!d || !same(d.interaction.uid, request.params.uid)) return expired(reply);
      return finish(request, reply, { error: 'access_denied', error_description: 'пользователь отказал в доступе' });
    });

    scope.get('/signout', async (_request, reply) => reply.redirect(`${deps.issuer}/session/end`));
  });
}
