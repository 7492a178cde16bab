/**
 * Redirect URI rules (docs/decisions.md, "Redirect rules"). A redirect URI is parsed and its parts
 * compared (scheme, host, port, path), never matched as a string: the string
 * `http://127.0.0.1:1@evil.example/cb` starts like a loopback URI but its host is evil.example.
 */

/** Hosts of RFC 8252 loopback redirects (exactly these spellings; `http:` is allowed only here). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A private-use scheme of a native app: reverse DNS (`com.example.app`), RFC 8252 §7.1. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/;

/** The deployment's redirect rules, from `OAUTH_REDIRECTS`. */
export interface RedirectPolicy {
  /** `loopback`: http(s) on 127.0.0.1, [::1] or localhost, any port (RFC 8252 §7.3). */
  loopback: boolean;
  /** `private-use`: native apps' reverse-DNS schemes (`com.example.app:/cb`). */
  privateUse: boolean;
  /** `https`: any https URI on the default port (development: any assistant may connect). */
  anyHttps: boolean;
  /** Exact redirect URIs (hosted assistants), compared as parsed URLs. */
  exact: URL[];
}

/** Parses `OAUTH_REDIRECTS` entries; throws on an entry that is neither a keyword nor an exact URI. */
export function parseRedirectPolicy(entries: string[]): RedirectPolicy {
  const policy: RedirectPolicy = { loopback: false, privateUse: false, anyHttps: false, exact: [] };
  for (const entry of entries) {
    if (entry === 'loopback') policy.loopback = true;
    else if (entry === 'private-use') policy.privateUse = true;
    else if (entry === 'https') policy.anyHttps = true;
    else {
      const problem = redirectProblem(entry);
      const url = URL.parse(entry);
      if (problem || !url || url.protocol !== 'https:' || entry.includes('*')) {
        throw new Error(`OAUTH_REDIRECTS: "${entry}" is not loopback, private-use, https or an exact https URI`);
      }
      policy.exact.push(url);
    }
  }
  return policy;
}

/**
 * Why a URI can never be a redirect URI, whatever the rules (null when it can be): unparsable,
 * userinfo or any `@`, a backslash, whitespace or control characters, a fragment, percent-encoding
 * in the authority, or a spelling that differs from its parsed form (`http://127.1/`,
 * `HTTPS://…`, dot segments) — what the server checks must be what the browser will open.
 */
export function redirectProblem(uri: string): string | null {
  if (uri.length > 2000) return 'too long';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u0020\u007f\\]/.test(uri)) return 'whitespace, control characters or a backslash';
  if (uri.includes('@')) return 'userinfo or "@"';
  if (uri.includes('#')) return 'a fragment';
  const url = URL.parse(uri);
  if (!url) return 'not a URL';
  if (url.username || url.password) return 'userinfo';
  const authority = /^[^:]+:\/\/([^/?]*)/.exec(uri)?.[1] ?? '';
  if (authority.includes('%')) return 'encoded characters in the host';
  if (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    !/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)
  )
    return 'not a plain host name';
  const canonical = url.href;
  if (uri !== canonical && `${uri}/` !== canonical) return 'not in canonical form';
  return null;
}

function isLoopback(url: URL): boolean {
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

function isPrivateUse(url: URL): boolean {
  const scheme = url.protocol.slice(0, -1);
  return PRIVATE_USE_SCHEME.test(scheme) && (url.host === '' || /^[a-z0-9.-]+$/.test(url.host));
}

/** The same redirect target: scheme, host, port, path and query all equal. */
function sameTarget(a: URL, b: URL): boolean {
  return (
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.port === b.port &&
    a.pathname === b.pathname &&
    a.search === b.search
  );
}

/** Null when the policy allows the URI as a redirect URI, else the reason it is refused. */
export function redirectRefusal(uri: string, policy: RedirectPolicy): string | null {
  const problem = redirectProblem(uri);
  if (problem) return problem;
  const url = new URL(uri);
  if (isLoopback(url)) return policy.loopback ? null : 'loopback redirects are not allowed here';
  if (url.protocol === 'http:') return 'http is allowed only on a loopback host';
  if (url.protocol === 'https:') {
    if (policy.exact.some((rule) => sameTarget(rule, url))) return null;
    if (policy.anyHttps && url.port === '') return null;
    return 'not one of the redirect URIs this server allows';
  }
  if (isPrivateUse(url)) return policy.privateUse ? null : 'private-use schemes are not allowed here';
  return 'scheme not allowed';
}

/**
 * Whether `uri` at authorization matches one of the client's registered redirect URIs: equal as
 * parsed URLs, or (RFC 8252 §7.3) a loopback URI that differs only in its port.
 */
export function registeredMatch(uri: string, registered: readonly string[]): boolean {
  if (redirectProblem(uri)) return false;
  const url = new URL(uri);
  return registered.some((r) => {
    const reg = URL.parse(r);
    if (!reg) return false;
    if (sameTarget(reg, url)) return true;
    return (
      isLoopback(url) &&
      isLoopback(reg) &&
      reg.protocol === url.protocol &&
      reg.hostname === url.hostname &&
      reg.pathname === url.pathname &&
      reg.search === url.search
    );
  });
}

/** The host (with a non-default port) a redirect URI sends the code to, as the consent page names it. */
export function redirectHost(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return uri;
  return url.host || `${url.protocol}`;
}
