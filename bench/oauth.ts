// `npm run bench:oauth`: whoami through the edge with an OAuth access token beside whoami with an
// API token of the same user, in the same run (interleaved rounds, 1 and 16 in flight). The OAuth
// token comes from the real flow: dynamic registration, PKCE, sign-in and consent in headless
// Chromium. Target: the OAuth p50 within 10% of the API-token p50.
import { createTestEnv } from '@studium/testing';
import { freePort, launchChromium, pkce, signInWithBrowser, startCallback } from '../test/support/oauth.ts';
import { startEdge, startEnrollment } from '../test/support/stack.ts';
import { connect, measureInterleaved, type Stats } from './harness.ts';

const TOTAL = Number(process.env.BENCH_OAUTH_CALLS ?? 2000);
const USER = 'bench-oauth@studium';
const PASSWORD = 'bench-password-123';

const env = await createTestEnv('benchoauth');
const enrollment = await startEnrollment(env);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const edge = await startEdge(env, { PORT: String(port), PUBLIC_URL: base, RATE_LIMIT_PER_MINUTE: '0' });
const callback = await startCallback();
try {
  await enrollment.admin.upsertUser(USER, 'Бенч Оаутов', ['Student']);
  await enrollment.admin.setPassword(USER, PASSWORD);
  const { token: apiToken } = await enrollment.admin.issueToken(USER);

  const reg = await fetch(`${base}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }),
  });
  const { client_id } = (await reg.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const auth = new URL(`${base}/oauth/auth`);
  auth.search = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: callback.url,
    scope: 'read write',
    resource: `${base}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const browser = await launchChromium();
  const { url } = await signInWithBrowser(browser, auth.href, callback.url, USER, PASSWORD);
  await browser.close();
  const tokenReply = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: url.searchParams.get('code') ?? '',
      redirect_uri: callback.url,
      client_id,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    }).toString(),
  });
  const { access_token } = (await tokenReply.json()) as { access_token: string };

  const viaApi = await connect(`${base}/mcp`, apiToken);
  const viaOAuth = await connect(`${base}/mcp`, access_token);
  const who = (c: Awaited<ReturnType<typeof connect>>) => () => c.callTool({ name: 'whoami', arguments: {} });
  const check = (await viaOAuth.callTool({ name: 'whoami', arguments: {} })) as { structuredContent?: unknown };
  if (!JSON.stringify(check.structuredContent).includes(USER)) throw new Error('OAuth whoami is not the bench user');
  await measureInterleaved([who(viaApi), who(viaOAuth)], 400, 4, 2); // warm-up

  const row = (name: string, s: Stats) =>
    console.log(
      `${name.padEnd(34)} p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ${s.perSecond.toFixed(0)}/s`,
    );
  for (const inFlight of [1, 16]) {
    const [api, oauth] = (await measureInterleaved([who(viaApi), who(viaOAuth)], TOTAL, inFlight)) as [Stats, Stats];
    row(`whoami, API token, ${inFlight} in flight`, api);
    row(`whoami, OAuth token, ${inFlight} in flight`, oauth);
    console.log(`  OAuth/API p50 = ${(oauth.p50 / api.p50).toFixed(3)} (target ≤ 1.10)\n`);
  }
  await viaApi.close();
  await viaOAuth.close();
} finally {
  callback.server.close();
  await edge.close();
  await enrollment.close();
  await env.cleanup();
  await env.nc.close().catch(() => {});
}
process.exit(0);
