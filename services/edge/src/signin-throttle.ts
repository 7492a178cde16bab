import type { Redis } from 'ioredis';

/** Before a password is checked: go on (after `waitMs`), or refuse for `retryAfter` seconds. */
export type SignInDecision = { allowed: true; waitMs: number } | { allowed: false; retryAfter: number };

/**
 * One attempt, atomically, in Redis (shared by replicas; Redis keeps the windows' time).
 * KEYS: the address's attempts, the (login, address) pair's failures, the login's failures.
 * ARGV: attempts per address, failures per pair (and per login before slowing down), window ms.
 * The attempt counts as a failure of its pair and login until {@link SUCCEEDED} takes it back, so
 * parallel guesses from one address cannot all pass the pair's limit before any of them failed.
 * Returns {0, slow} to go on (slow = 1: the login had its limit of failures in the window), or
 * {1, ms} to refuse for ms.
 */
const ATTEMPT = `
local window = tonumber(ARGV[3])
local function bump(key)
  local n = redis.call('INCR', key)
  if n == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, window) end
  return n
end
if bump(KEYS[1]) > tonumber(ARGV[1]) then return {1, redis.call('PTTL', KEYS[1])} end
if bump(KEYS[2]) > tonumber(ARGV[2]) then
  redis.call('DECR', KEYS[2])
  return {1, redis.call('PTTL', KEYS[2])}
end
local before = bump(KEYS[3]) - 1
if before >= tonumber(ARGV[2]) then return {0, 1} end
return {0, 0}
`;

/** The right password (or a check that did not run): the attempt was no failure after all. */
const SUCCEEDED = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`;

type WithCommands = Redis & {
  studiumSignInAttempt(
    a: string,
    p: string,
    l: string,
    perAddress: number,
    failures: number,
    windowMs: number,
  ): Promise<[number, number]>;
  studiumSignInSucceeded(p: string, l: string): Promise<number>;
};

export interface SignInThrottleOptions {
  /** Redis key prefix (the subject prefix: test files and deployments apart). */
  prefix: string;
  /** Attempts from one client address per window, any login; more are refused. */
  attemptsPerAddress: number;
  /**
   * Failures of one login from one address per window; more are refused from that address. The
   * same number of failures of the login from all addresses together slows every attempt on it.
   */
  failuresPerLogin: number;
  /** How long an attempt on a login under attack waits before its password is checked. */
  slowdownMs: number;
  windowMs?: number;
}

/**
 * Sign-in throttling that an attacker cannot turn against the account's owner (docs/decisions.md,
 * «Sign-in throttling»): refusals are per client address (all its attempts) and per (login,
 * address) pair (its failures); a login's failures from everywhere only delay attempts on it. So
 * guessing a known login from one address locks out that address, never the owner at theirs, and a
 * correct password from an address without failures always works, at worst `slowdownMs` later.
 * Both sign-in pages (the web's and the OAuth one) share the windows. If Redis is unreachable,
 * attempts go on: the passwords are argon2id, and an outage of a cache must not stop sign-in.
 */
export class SignInThrottle {
  private readonly redis: WithCommands;
  private readonly windowMs: number;

  constructor(
    redis: Redis,
    private readonly options: SignInThrottleOptions,
  ) {
    const r = redis as WithCommands;
    if (typeof r.studiumSignInAttempt !== 'function') {
      r.defineCommand('studiumSignInAttempt', { numberOfKeys: 3, lua: ATTEMPT });
      r.defineCommand('studiumSignInSucceeded', { numberOfKeys: 2, lua: SUCCEEDED });
    }
    this.redis = r;
    this.windowMs = options.windowMs ?? 60_000;
  }

  private keys(login: string, address: string): [string, string, string] {
    // The login as typed, lower-cased and bounded: the same account however it is spelled.
    const who = login.trim().toLowerCase().slice(0, 320);
    const p = `${this.options.prefix}:signin`;
    return [`${p}:addr:${address}`, `${p}:pair:${address}:${who}`, `${p}:login:${who}`];
  }

  /** Counts an attempt and says whether its password may be checked, and after how long a wait. */
  async attempt(login: string, address: string): Promise<SignInDecision> {
    const [a, p, l] = this.keys(login, address);
    let reply: [number, number];
    try {
      reply = await this.redis.studiumSignInAttempt(
        a,
        p,
        l,
        this.options.attemptsPerAddress,
        this.options.failuresPerLogin,
        this.windowMs,
      );
    } catch {
      return { allowed: true, waitMs: 0 };
    }
    const [refused, value] = reply.map(Number) as [number, number];
    if (refused) return { allowed: false, retryAfter: Math.max(1, Math.ceil(value / 1000)) };
    return { allowed: true, waitMs: value ? this.options.slowdownMs : 0 };
  }

  /** The attempt's password was right (or could not be checked): it is no failure. */
  async succeeded(login: string, address: string): Promise<void> {
    const [, p, l] = this.keys(login, address);
    await this.redis.studiumSignInSucceeded(p, l).catch(() => {});
  }

  /**
   * The whole gate of one attempt: refused, or `check` run after the wait; the attempt is taken
   * back as a failure unless `check` says the password was wrong.
   */
  async guard<T>(
    login: string,
    address: string,
    check: () => Promise<{ wrongPassword: boolean; value: T }>,
  ): Promise<{ refused: number } | { value: T }> {
    const decision = await this.attempt(login, address);
    if (!decision.allowed) return { refused: decision.retryAfter };
    if (decision.waitMs) await new Promise((r) => setTimeout(r, decision.waitMs));
    const { wrongPassword, value } = await check();
    if (!wrongPassword) await this.succeeded(login, address);
    return { value };
  }
}

/** The throttle of both sign-in pages, from the edge's configuration (one set of windows). */
export function signInThrottle(
  redis: Redis,
  config: {
    SUBJECT_PREFIX: string;
    LOGIN_ATTEMPTS_PER_MINUTE: number;
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: number;
    LOGIN_SLOWDOWN_MS: number;
  },
): SignInThrottle {
  return new SignInThrottle(redis, {
    prefix: config.SUBJECT_PREFIX,
    attemptsPerAddress: config.LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE,
    failuresPerLogin: config.LOGIN_ATTEMPTS_PER_MINUTE,
    slowdownMs: config.LOGIN_SLOWDOWN_MS,
  });
}
