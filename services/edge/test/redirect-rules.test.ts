import { describe, expect, it } from 'vitest';
import { redirectAllowed } from '../src/oauth/provider.ts';

describe('redirect rules', () => {
  const rules = ['http://localhost:*', 'https://claude.ai/api/mcp/auth_callback'];
  it('match whole URIs, * standing for any characters', () => {
    expect(redirectAllowed('http://localhost:6274/oauth/callback', rules)).toBe(true);
    expect(redirectAllowed('https://claude.ai/api/mcp/auth_callback', rules)).toBe(true);
    expect(redirectAllowed('https://claude.ai/api/mcp/auth_callback/x', rules)).toBe(false);
    expect(redirectAllowed('https://claude.ai.evil.example/api/mcp/auth_callback', rules)).toBe(false);
    expect(redirectAllowed('http://localhost.evil.example/cb', ['http://localhost:*'])).toBe(false);
  });
});
