import type { Bus } from '@studium/platform';
import type Provider from 'oidc-provider';
import type { AuditLog } from '../audit.ts';
import type { SignInThrottle } from '../signin-throttle.ts';

/** What the authorization server's routes and its sign-in pages need. */
export interface OAuthRouteDeps {
  provider: Provider;
  bus: Bus;
  audit: AuditLog;
  /** Sign-in attempts per address and (login, address), shared with the web sign-in. */
  throttle: SignInThrottle;
  /** Protected resources by endpoint path (`/mcp` → `https://host/mcp`). */
  resources: Record<string, string>;
  /** Origins clients may reach the edge by; resource metadata names the one asked at. */
  origins: string[];
  issuer: string;
  /** Browser origins (hosted assistants) allowed to register clients (CORS). */
  corsOrigins: string[];
  /** Lifetime of a grant and its refresh tokens, seconds (the consent page names it). */
  refreshTokenTtlS: number;
  /** Called when a user's grants change, so cached tokens are dropped on every replica. */
  onUserChanged?: (user: string) => void;
}
