import { describe, expect, it } from 'vitest';
import { csrfToken, tokensMatch } from '../src/web/sessions.ts';

// A hostile form field or header must be refused (false → 403), never throw (a 500).
describe('tokensMatch', () => {
  const expected = csrfToken('a-session-id');

  it('takes the right token and refuses others', () => {
    expect(tokensMatch(expected, expected)).toBe(true);
    expect(tokensMatch(`${expected.slice(0, -1)}x`, expected)).toBe(false);
    expect(tokensMatch(expected.slice(1), expected)).toBe(false);
    expect(tokensMatch(undefined, expected)).toBe(false);
    expect(tokensMatch(['x'], expected)).toBe(false);
  });

  it('refuses a value as long in characters but not in bytes, without throwing', () => {
    const wide = `é${expected.slice(1)}`;
    expect(wide.length).toBe(expected.length);
    expect(() => tokensMatch(wide, expected)).not.toThrow();
    expect(tokensMatch(wide, expected)).toBe(false);
  });
});
