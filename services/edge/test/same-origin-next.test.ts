import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOME, sameOriginPath } from '../src/web/next.ts';

// The sign-in page's `next` (issue 30 point 3): `/login?next=/%09/127.0.0.1:9977/…` sent a
// signed-in user to another host, because browsers drop the TAB. Whatever string arrives, the
// address the edge sends back must resolve, as a browser resolves a Location header, to a page of
// the site's own origin — from the sign-in page's URL or any other page.
const ORIGIN = 'http://127.0.0.1:8080';
const FROM = [`${ORIGIN}/login?next=x`, `${ORIGIN}/a/b/c?x=1#y`, `${ORIGIN}/`];

/** Pieces that have opened other origins in one parser or another. */
const TRICKS = [
  '/',
  '\\',
  '\t',
  '\n',
  '\r',
  ' ',
  '\u0000',
  '\u000b',
  '\u000c',
  '\u00a0',
  '\u202e',
  '\u2028',
  '\ufeff',
  '\u3002',
  '\uff0f',
  '%09',
  '%0a',
  '%2f',
  '%2F',
  '%5c',
  '%252f',
  '%00',
  '.',
  '..',
  '@',
  ':',
  '?',
  '#',
  'http:',
  'https:',
  'javascript:',
  'data:',
  'evil.example',
  '127.0.0.1:9977',
  'localhost',
  '[::1]',
  'x',
];

const tricky = fc.array(fc.constantFrom(...TRICKS), { maxLength: 12 }).map((xs) => xs.join(''));
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  tricky,
  tricky.map((s) => `/${s}`),
);

function staysHome(out: string): void {
  expect(out.startsWith('/')).toBe(true);
  expect(out.startsWith('//')).toBe(false);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never be sent
  expect(out).not.toMatch(/[\u0000-\u0020\u007f\\]/);
  for (const from of FROM) {
    const url = new URL(out, from);
    expect(url.origin).toBe(ORIGIN);
    expect(url.username + url.password).toBe('');
  }
  // A path reference never names a host: from any page it stays on that page's origin.
  expect(new URL(out, 'http://other.example/login').origin).toBe('http://other.example');
}

describe('sameOriginPath: where a sign-in sends the browser back', () => {
  it('always names a page of the site itself, whatever string it is given', () => {
    fc.assert(
      fc.property(anyText, (next) => {
        staysHome(sameOriginPath(next, ORIGIN));
      }),
      { numRuns: 5000 },
    );
  });

  it('is stable: what it returns, given back, comes back unchanged', () => {
    fc.assert(
      fc.property(anyText, (next) => {
        const out = sameOriginPath(next, ORIGIN);
        expect(sameOriginPath(out, ORIGIN)).toBe(out);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every plain path of the site, with its query and fragment', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
    const path = fc
      .tuple(
        fc.array(segment, { minLength: 0, maxLength: 5 }),
        fc.option(fc.stringMatching(/^[a-z]{1,6}=[A-Za-z0-9%]{0,10}$/), { nil: undefined }),
        fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
      )
      .map(
        ([segs, q, h]) => `/${segs.join('/')}${q ? `?${q.replace(/%(?![0-9A-F]{2})/g, '')}` : ''}${h ? `#${h}` : ''}`,
      );
    fc.assert(
      fc.property(path, (p) => {
        expect(sameOriginPath(p, ORIGIN)).toBe(p);
      }),
      { numRuns: 2000 },
    );
    expect(sameOriginPath('/lessons/demo.intro#homework', ORIGIN)).toBe('/lessons/demo.intro#homework');
    expect(sameOriginPath('/tutor?lesson=demo.intro', ORIGIN)).toBe('/tutor?lesson=demo.intro');
    expect(sameOriginPath('/catalog?q=%D0%B0%20b', ORIGIN)).toBe('/catalog?q=%D0%B0%20b');
  });

  it('refuses the known tricks: TAB, CR/LF, backslash, scheme-relative, dot segments, encodings, full URLs', () => {
    for (const trick of [
      '/\t/127.0.0.1:9977/x',
      decodeURIComponent('/%09/127.0.0.1:9977/x'),
      '/\n/evil.example',
      '/\r/evil.example',
      '/\r\n/evil.example',
      '\t//evil.example',
      ' //evil.example',
      '//evil.example/x',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\\/evil.example',
      '/./\\evil.example',
      '/.//evil.example',
      '/x/..//evil.example',
      '/%2F/evil.example',
      '/%2f%2fevil.example',
      '/%5Cevil.example',
      '/%09/evil.example',
      '/\u202eelpmaxe.live',
      'http://evil.example/',
      'https://127.0.0.1:8080.evil.example/',
      'javascript:alert(1)',
      'evil.example',
      '',
      '/'.repeat(2000),
    ]) {
      expect(sameOriginPath(trick, ORIGIN), JSON.stringify(trick)).toBe(HOME);
    }
    expect(sameOriginPath(undefined, ORIGIN)).toBe(HOME);
    expect(sameOriginPath(['/a'], ORIGIN)).toBe(HOME);
  });
});
