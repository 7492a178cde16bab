import { describe, expect, it } from 'vitest';
import { parseRedirectPolicy, redirectRefusal, registeredMatch } from '../src/oauth/redirect.ts';

const policy = parseRedirectPolicy(['loopback', 'private-use', 'https://claude.ai/api/mcp/auth_callback']);
const allowed = (uri: string, p = policy) => redirectRefusal(uri, p) === null;

describe('redirect rules compare parsed URLs', () => {
  it('accept loopback on any port, the exact hosted redirect, and reverse-DNS private-use schemes', () => {
    expect(allowed('http://127.0.0.1:6276/oauth/callback')).toBe(true);
    expect(allowed('http://localhost:33418')).toBe(true);
    expect(allowed('http://[::1]:8080/cb')).toBe(true);
    expect(allowed('https://claude.ai/api/mcp/auth_callback')).toBe(true);
    expect(allowed('com.example.app:/oauth2redirect')).toBe(true);
  });

  it('refuse userinfo, @, suffix hosts, backslashes, encoded hosts, fragments, other ports and odd spellings', () => {
    for (const uri of [
      'http://127.0.0.1:1@evil.example/cb',
      'http://evil.example@127.0.0.1/cb',
      'http://user:pw@localhost/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://localhost.evil.example/cb',
      'https://claude.ai.evil.example/api/mcp/auth_callback',
      'https://claude.ai/api/mcp/auth_callback/x',
      'https://claude.ai/api/mcp/auth_callback?x=1',
      'https://claude.ai:8443/api/mcp/auth_callback',
      'http://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1\\@evil.example/cb',
      'https:\\\\claude.ai/api/mcp/auth_callback',
      'http://127.0.0.%31/cb',
      'https://claude%2eai/api/mcp/auth_callback',
      'http://127.0.0.1/cb#x',
      'http://127.1/cb',
      'http://LOCALHOST/cb',
      'http://0x7f.0.0.1/cb',
      'https://claude.ai/api/mcp/../mcp/auth_callback',
      'http://127.0.0.1/cb\n',
      'javascript:alert(1)',
      'myapp:/cb',
      'http://evil.example/cb',
      'not a url',
    ]) {
      expect(redirectRefusal(uri, policy), uri).not.toBeNull();
    }
  });

  it('allow any https host only with the https keyword, and only on the default port', () => {
    const open = parseRedirectPolicy(['https']);
    expect(allowed('https://assistant.example/cb', open)).toBe(true);
    expect(allowed('https://assistant.example:8443/cb', open)).toBe(false);
    expect(allowed('http://127.0.0.1/cb', open)).toBe(false);
    expect(allowed('com.example.app:/cb', open)).toBe(false);
  });

  it('refuse a configuration entry that is no keyword and no exact https URI', () => {
    expect(() => parseRedirectPolicy(['http://localhost:*'])).toThrow(/OAUTH_REDIRECTS/);
    expect(() => parseRedirectPolicy(['https://*.example.org/cb'])).toThrow(/OAUTH_REDIRECTS/);
  });

  it('match a registered URI at authorization exactly, a loopback one on any port', () => {
    const registered = ['http://127.0.0.1:6276/cb', 'https://claude.ai/api/mcp/auth_callback'];
    expect(registeredMatch('http://127.0.0.1:5000/cb', registered)).toBe(true);
    expect(registeredMatch('http://localhost:6276/cb', registered)).toBe(false);
    expect(registeredMatch('http://127.0.0.1:6276/cb2', registered)).toBe(false);
    expect(registeredMatch('https://claude.ai:444/api/mcp/auth_callback', registered)).toBe(false);
    expect(registeredMatch('http://127.0.0.1:1@evil.example/cb', registered)).toBe(false);
  });
});
