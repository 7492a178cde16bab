import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BusTrust } from './bus-trust.ts';
import { generateEdgeKeys, principalSigner, principalVerifier } from './principal-token.ts';
import { replySigner, replyVerifier } from './reply-signature.ts';

/** Where a development process keeps the edge key pair when the environment has none. */
export const DEV_KEYS_FILE = '.studium/edge-keys.json';
/** Where a development process keeps enrollment's reply key pair when the environment has none. */
export const DEV_REPLY_KEYS_FILE = '.studium/enrollment-keys.json';

/**
 * The development key pair in `file`, created on first use (exclusive create, so processes started
 * together agree on one pair). Only for a machine without `EDGE_SIGNING_KEY`/`EDGE_PUBLIC_KEY`.
 */
export function devEdgeKeys(file = resolve(DEV_KEYS_FILE)): { privateKey: string; publicKey: string } {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, JSON.stringify(generateEdgeKeys()), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A start-up refusal: one line, no stack trace. */
export class StartupRefusal extends Error {
  override name = 'StartupRefusal';
}

const production = (env: NodeJS.ProcessEnv) => env.NODE_ENV === 'production' || env.STUDIUM_ENV === 'production';

/**
 * The bus keys of a process from its environment: a service verifies with `EDGE_PUBLIC_KEY`
 * (several keys, comma-separated, during a rotation); the edge (and the operator's scripts) sign
 * with `EDGE_SIGNING_KEY`. Enrollment (`service` `enrollment`) also signs the replies that carry
 * identity with `ENROLLMENT_SIGNING_KEY`, and the edge checks them with `ENROLLMENT_PUBLIC_KEY`
 * (see reply-signature.ts). In production (`NODE_ENV` or `STUDIUM_ENV` `production`) a missing key
 * refuses the start; in development, with neither key of a pair set, the pair in
 * {@link DEV_KEYS_FILE} (or {@link DEV_REPLY_KEYS_FILE}) stands in.
 */
export function trustFromEnv(env: NodeJS.ProcessEnv, role: 'service' | 'edge', service = ''): BusTrust {
  let publicKey = env.EDGE_PUBLIC_KEY?.trim() ?? '';
  let privateKey = env.EDGE_SIGNING_KEY?.trim() ?? '';
  const missing = role === 'edge' ? (privateKey ? null : 'EDGE_SIGNING_KEY') : publicKey ? null : 'EDGE_PUBLIC_KEY';
  if (missing) {
    if (production(env) || publicKey || privateKey) {
      throw new StartupRefusal(`${missing} is not set: the bus cannot prove or check who calls`);
    }
    ({ publicKey, privateKey } = devEdgeKeys());
  }
  let trust: BusTrust;
  try {
    if (role === 'service') trust = { verifier: principalVerifier(publicKey) };
    else
      trust = { signer: principalSigner(privateKey), verifier: publicKey ? principalVerifier(publicKey) : undefined };
  } catch (err) {
    throw new StartupRefusal(`bad edge key: ${(err as Error).message}`);
  }
  if (role === 'edge') trust.replyVerifier = replyKeyFrom(env, 'ENROLLMENT_PUBLIC_KEY', replyVerifier);
  if (role === 'service' && service === 'enrollment') {
    trust.replySigner = replyKeyFrom(env, 'ENROLLMENT_SIGNING_KEY', replySigner);
  }
  return trust;
}

/** One side of enrollment's reply key pair from the environment (or the development pair). */
function replyKeyFrom<T>(
  env: NodeJS.ProcessEnv,
  name: 'ENROLLMENT_PUBLIC_KEY' | 'ENROLLMENT_SIGNING_KEY',
  make: (key: string, name: string) => T,
): T {
  let key = env[name]?.trim() ?? '';
  if (!key) {
    const other = name === 'ENROLLMENT_PUBLIC_KEY' ? 'ENROLLMENT_SIGNING_KEY' : 'ENROLLMENT_PUBLIC_KEY';
    if (production(env) || env[other]?.trim()) {
      throw new StartupRefusal(`${name} is not set: identity replies cannot be signed or checked`);
    }
    const pair = devEdgeKeys(resolve(DEV_REPLY_KEYS_FILE));
    key = name === 'ENROLLMENT_PUBLIC_KEY' ? pair.publicKey : pair.privateKey;
  }
  try {
    return make(key, name);
  } catch (err) {
    throw new StartupRefusal(`bad enrollment key: ${(err as Error).message}`);
  }
}

/** Ends the process with a start-up refusal's one line, or rethrows anything else. */
export function exitOnRefusal(err: unknown, log: { fatal(msg: string): void }): never {
  if (!(err instanceof StartupRefusal)) throw err;
  log.fatal(err.message);
  process.exit(1);
}
