import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BusTrust } from './bus-trust.ts';
import { generateEdgeKeys, principalSigner, principalVerifier } from './principal-token.ts';

/** Where a development process keeps the edge key pair when the environment has none. */
export const DEV_KEYS_FILE = '.studium/edge-keys.json';

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

/**
 * The bus keys of a process from its environment: a service verifies with `EDGE_PUBLIC_KEY`
 * (several keys, comma-separated, during a rotation); the edge (and the operator's scripts) sign
 * with `EDGE_SIGNING_KEY`. Outside development (`NODE_ENV=production`) a missing key refuses the
 * start; in development, with neither key set, the pair in {@link DEV_KEYS_FILE} stands in.
 */
export function trustFromEnv(env: NodeJS.ProcessEnv, role: 'service' | 'edge'): BusTrust {
  let publicKey = env.EDGE_PUBLIC_KEY?.trim() ?? '';
  let privateKey = env.EDGE_SIGNING_KEY?.trim() ?? '';
  const missing = role === 'edge' ? (privateKey ? null : 'EDGE_SIGNING_KEY') : publicKey ? null : 'EDGE_PUBLIC_KEY';
  if (missing) {
    if (env.NODE_ENV === 'production' || publicKey || privateKey) {
      throw new StartupRefusal(`${missing} is not set: the bus cannot prove or check who calls`);
    }
    ({ publicKey, privateKey } = devEdgeKeys());
  }
  try {
    if (role === 'service') return { verifier: principalVerifier(publicKey) };
    const signer = principalSigner(privateKey);
    return { signer, verifier: publicKey ? principalVerifier(publicKey) : undefined };
  } catch (err) {
    throw new StartupRefusal(`bad edge key: ${(err as Error).message}`);
  }
}

/** Ends the process with a start-up refusal's one line, or rethrows anything else. */
export function exitOnRefusal(err: unknown, log: { fatal(msg: string): void }): never {
  if (!(err instanceof StartupRefusal)) throw err;
  log.fatal(err.message);
  process.exit(1);
}
