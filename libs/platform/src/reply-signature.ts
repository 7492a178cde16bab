import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { keyId, privateKeyOf, publicKeyOf } from './principal-token.ts';

/**
 * Replies that carry identity (enrollment's token and user lookups: `signedReply` on the
 * operation) are signed by the service that answers and checked by the one that asked, the way
 * services check the edge's principals: the requester sends a fresh random nonce
 * ({@link REPLY_NONCE_HEADER}), the service signs the wire subject, that nonce and the reply's
 * bytes ({@link REPLY_SIGNATURE_HEADER}), and the requester accepts the reply only when the
 * signature verifies with the service's public key for its own subject and nonce. A reply that
 * some other process managed to publish into the requester's inbox, or one recorded earlier and
 * replayed, fails the check: the edge never turns it into a principal.
 */
export const REPLY_NONCE_HEADER = 'Studium-Reply-Nonce';
export const REPLY_SIGNATURE_HEADER = 'Studium-Reply-Signature';

/** A nonce as the requester sends it: the bus draws 22 characters (132 bits) per attempt. */
export const REPLY_NONCE = /^[A-Za-z0-9_-]{16,64}$/;

/** The serving side: signs one reply for the subject and nonce it was asked with. */
export interface ReplySigner {
  sign(subject: string, nonce: string, body: Uint8Array): string;
}

/** The requesting side: whether a reply's signature is the service's for this subject and nonce. */
export interface ReplyVerifier {
  verify(subject: string, nonce: string, body: Uint8Array, signature: string): boolean;
}

const b64 = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');

/** The signed bytes: a domain tag (no principal token can pass for a reply), subject, nonce, body. */
function signedBytes(subject: string, nonce: string, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`studium-reply.v1\n${subject}\n${nonce}\n`), body]);
}

/** A signer from `ENROLLMENT_SIGNING_KEY` (base64 PKCS#8 DER or PEM). Signature: `v1.<kid>.<sig>`. */
export function replySigner(privateKey: string, name = 'ENROLLMENT_SIGNING_KEY'): ReplySigner {
  const key = privateKeyOf(privateKey, name);
  const kid = keyId(createPublicKey(key));
  return {
    sign: (subject, nonce, body) => `v1.${kid}.${b64(sign(null, signedBytes(subject, nonce, body), key))}`,
  };
}

/** A verifier from `ENROLLMENT_PUBLIC_KEY`: one key, or several comma-separated during a rotation. */
export function replyVerifier(publicKeys: string, name = 'ENROLLMENT_PUBLIC_KEY'): ReplyVerifier {
  const keys = new Map<string, KeyObject>();
  for (const part of publicKeys.split(',')) {
    if (!part.trim()) continue;
    const key = publicKeyOf(part, name);
    keys.set(keyId(key), key);
  }
  if (keys.size === 0) throw new Error(`${name} holds no key`);
  return {
    verify(subject, nonce, body, signature) {
      const parts = signature.split('.');
      if (parts.length !== 3 || parts[0] !== 'v1') return false;
      const key = keys.get(parts[1] as string);
      if (!key) return false;
      const sig = Buffer.from(parts[2] as string, 'base64url');
      return sig.length === 64 && verify(null, signedBytes(subject, nonce, body), key, sig);
    },
  };
}
