import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { Principal } from '@studium/contracts';

/**
 * NATS header with the edge-signed principal: `v1.<kid>.<payload>.<signature>`, base64url, where
 * payload is the JSON `{ p, sub, exp }` (principal, the subject the edge signed it for, expiry in
 * epoch ms) and signature is Ed25519 over the payload bytes exactly as sent, so no canonical JSON
 * form is needed: the verifier parses the bytes that were signed. `kid` names the key (rotation).
 */
export const PRINCIPAL_HEADER = 'Studium-Principal';

/** A verified (or freshly signed) principal with the token that proves it. */
export interface SignedPrincipal {
  principal: Principal;
  token: string;
  /** The contract subject the edge signed it for (`lessons.start_lesson`). */
  sub: string;
  /** Epoch ms after which no service accepts it. */
  exp: number;
}

/** Why a token was refused: logged as the violation; `unsigned` and `expired` are 401, the rest 403. */
export type TokenRefusal = 'unsigned' | 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'wrong_subject';

/** The edge's side: signs a principal for one subject. */
export interface PrincipalSigner {
  sign(principal: Principal, sub: string, exp: number): string;
}

/** A service's side: checks a token and returns the principal it carries, or why not. */
export interface PrincipalVerifier {
  verify(token: string, now?: number): { ok: true; signed: SignedPrincipal } | { ok: false; reason: TokenRefusal };
}

/**
 * Clock skew between hosts a token's expiry tolerates. The expiry is the edge request's deadline,
 * so a service on a host whose clock is ahead still answers a call the edge waits for.
 */
const SKEW_MS = 2_000;

const b64 = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');

/** The key id of a public key: 8 bytes of the SHA-256 of its DER form. */
export function keyId(pub: KeyObject): string {
  return b64(
    createHash('sha256')
      .update(pub.export({ type: 'spki', format: 'der' }))
      .digest()
      .subarray(0, 8),
  );
}

/** A new Ed25519 key pair in the environment's format: base64 DER (PKCS#8 private, SPKI public). */
export function generateEdgeKeys(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

/** An Ed25519 private key from base64 PKCS#8 DER or PEM; `name` is the variable it came from. */
export function privateKeyOf(text: string, name = 'EDGE_SIGNING_KEY'): KeyObject {
  const t = text.trim();
  const key = t.startsWith('-----')
    ? createPrivateKey(t)
    : createPrivateKey({ key: Buffer.from(t, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${name} is not an Ed25519 key`);
  return key;
}

/** An Ed25519 public key from base64 SPKI DER or PEM; `name` is the variable it came from. */
export function publicKeyOf(text: string, name = 'EDGE_PUBLIC_KEY'): KeyObject {
  const t = text.trim();
  const key = t.startsWith('-----')
    ? createPublicKey(t)
    : createPublicKey({ key: Buffer.from(t, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${name} is not an Ed25519 key`);
  return key;
}

/** The edge's signer from `EDGE_SIGNING_KEY` (base64 PKCS#8 DER or PEM). */
export function principalSigner(privateKey: string): PrincipalSigner {
  const key = privateKeyOf(privateKey);
  const kid = keyId(createPublicKey(key));
  return {
    sign(principal, sub, exp) {
      const payload = Buffer.from(JSON.stringify({ p: principal, sub, exp }));
      return `v1.${kid}.${b64(payload)}.${b64(sign(null, payload, key))}`;
    },
  };
}

/** Verified tokens a verifier keeps (the oldest goes first): the tokens of the callers active now. */
const VERIFIED_KEPT = 4096;

/**
 * A verifier from `EDGE_PUBLIC_KEY`: one key, or several separated by commas while a rotation is
 * under way (the token's key id picks one).
 *
 * It keeps the tokens it verified, by their exact text, until they expire: the edge reuses a
 * caller's token for a few seconds (`TOKEN_REUSE_MS`), and one tool call brings the same token to
 * several endpoints, so most requests carry a token already checked, and an Ed25519 verification
 * (about 60 µs) was 4–8 % of each service's CPU in the lesson loop. What keeps it correct: only a
 * token whose signature verified is kept, a kept one is the same bytes the signature covered (a
 * single changed character is another key, verified from scratch), its expiry is checked on every
 * use exactly as for a fresh one, and the keys never change while the process runs.
 */
export function principalVerifier(publicKeys: string): PrincipalVerifier {
  const keys = new Map<string, KeyObject>();
  for (const part of publicKeys.split(',')) {
    if (!part.trim()) continue;
    const key = publicKeyOf(part);
    keys.set(keyId(key), key);
  }
  if (keys.size === 0) throw new Error('EDGE_PUBLIC_KEY holds no key');
  const verified = new Map<string, SignedPrincipal>();
  const check = (token: string): { ok: true; signed: SignedPrincipal } | { ok: false; reason: TokenRefusal } => {
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') return { ok: false, reason: 'malformed' };
    const key = keys.get(parts[1] as string);
    if (!key) return { ok: false, reason: 'unknown_key' };
    const payload = Buffer.from(parts[2] as string, 'base64url');
    const sig = Buffer.from(parts[3] as string, 'base64url');
    if (sig.length !== 64 || !verify(null, payload, key, sig)) return { ok: false, reason: 'bad_signature' };
    let body: { p?: unknown; sub?: unknown; exp?: unknown };
    try {
      body = JSON.parse(payload.toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const principal = Principal.safeParse(body?.p);
    if (!principal.success || typeof body.sub !== 'string' || typeof body.exp !== 'number') {
      return { ok: false, reason: 'malformed' };
    }
    return { ok: true, signed: { principal: principal.data, token, sub: body.sub, exp: body.exp } };
  };
  return {
    verify(token, now = Date.now()) {
      let signed = verified.get(token);
      if (!signed) {
        const checked = check(token);
        if (!checked.ok) return checked;
        signed = checked.signed;
        if (signed.exp + SKEW_MS > now) {
          if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value as string);
          verified.set(token, signed);
        }
      }
      if (signed.exp + SKEW_MS <= now) {
        verified.delete(token);
        return { ok: false, reason: 'expired' };
      }
      return { ok: true, signed };
    },
  };
}
