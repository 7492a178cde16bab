/** Where a sign-in goes when the address asked for is not one of this site's: the start page. */
export const HOME = '/';

/** Longest address a sign-in sends back to (a page's path and query; anything longer is not ours). */
const MAX_NEXT = 1000;

// Browsers drop TAB, CR and LF anywhere in a URL and read `\` as `/` in http URLs, so
// `/\t/evil.example` is `//evil.example` to them: such characters (and any other control or
// space character) are refused outright rather than tidied up, as is, in the path, their
// percent-encoded form and an encoded slash or backslash, which a proxy or a later decoder could
// turn back into them (the query may hold any encoded text: it never names a host).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const UNSAFE = /[\u0000-\u0020\u007f-\u009f\\\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/;
const UNSAFE_ENCODED = /%(?:[01][0-9a-f]|7f|5c|2f)/i;

/**
 * The path (with query and fragment) of this site that `next` names, or {@link HOME}. `next` is
 * resolved against the site's origin as a browser resolves a Location header, and kept only when
 * the result is on that origin; what is returned is the parsed URL's own spelling, checked to
 * resolve to the same URL again, so the browser opens exactly what was checked. Every redirect of
 * the edge to a caller-given address goes through here (the sign-in page's `next`, the pages'
 * way back after sign-in).
 */
export function sameOriginPath(next: unknown, origin: string): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > MAX_NEXT) return HOME;
  // Only an absolute path: no scheme, no `//host`, no relative path that depends on the page.
  if (next[0] !== '/' || next[1] === '/' || UNSAFE.test(next)) return HOME;
  if (UNSAFE_ENCODED.test(next.split(/[?#]/, 1)[0] as string)) return HOME;
  const base = URL.parse(origin);
  if (!base) return HOME;
  const url = URL.parse(next, base.origin);
  if (!url || url.origin !== base.origin || url.username || url.password) return HOME;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can leave `//host` in the path (`/.//evil.example`): resolved again, that
  // would be another origin. Only a spelling that resolves to itself is sent.
  if (path.startsWith('//')) return HOME;
  const again = URL.parse(path, base.origin);
  return again && again.href === url.href && again.origin === base.origin ? path : HOME;
}
