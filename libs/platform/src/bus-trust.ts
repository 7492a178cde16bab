import type { Principal } from '@studium/contracts';
import type { PrincipalSigner, PrincipalVerifier, SignedPrincipal, TokenRefusal } from './principal-token.ts';
import type { ReplySigner, ReplyVerifier } from './reply-signature.ts';

/**
 * Principals this process received and verified, by object: `request` forwards the token of a
 * principal it finds here, so a handler passes `ctx.principal` on and the signature goes with it,
 * while a principal a service made up itself has no token and cannot be sent.
 */
const signedPrincipals = new WeakMap<Principal, SignedPrincipal>();

/**
 * The principal of a verified token, as a handler receives it: frozen to the bottom (the verifier
 * keeps it for the token's next requests, so no handler may change what another one sees), and
 * passed on with its token.
 */
export function receivedPrincipal(signed: SignedPrincipal): Principal {
  const principal = signed.principal;
  if (!Object.isFrozen(principal)) deepFreeze(principal);
  signedPrincipals.set(principal, signed);
  return principal;
}

function deepFreeze(value: object): void {
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object') deepFreeze(inner);
  Object.freeze(value);
}

/** How the bus proves and checks callers (see `PRINCIPAL_HEADER`). */
export interface BusTrust {
  /** The edge's key: a request with a principal that is not a forwarded one is signed with it. */
  signer?: PrincipalSigner;
  /** The edge's public key(s): every served request that carries a principal is checked with it. */
  verifier?: PrincipalVerifier;
  /** This service's reply key (enrollment's): signs the replies of `signedReply` operations it serves. */
  replySigner?: ReplySigner;
  /** The answering service's public key(s) (the edge's copy of enrollment's): checks those replies. */
  replyVerifier?: ReplyVerifier;
}

/**
 * The verified principal of a request, or why it is refused: a claimed principal (the header's
 * token, or a principal in the body) must come signed by the edge, unexpired, for this subject (or
 * for another where the endpoint takes forwarded callers), and a body's principal must be the token's.
 */
export function callerOf(
  verifier: PrincipalVerifier | undefined,
  ep: { contract: { subject: string }; forwarded?: boolean },
  token: string,
  claimed: unknown,
): { ok: true; principal: Principal | null } | { ok: false; reason: TokenRefusal | 'mismatch' | 'no_key' } {
  if (!token) return claimed == null ? { ok: true, principal: null } : { ok: false, reason: 'unsigned' };
  if (!verifier) return { ok: false, reason: 'no_key' };
  const checked = verifier.verify(token);
  if (!checked.ok) return checked;
  const { signed } = checked;
  if (signed.sub !== ep.contract.subject && !ep.forwarded) return { ok: false, reason: 'wrong_subject' };
  if (claimed != null && JSON.stringify(claimed) !== JSON.stringify(signed.principal)) {
    return { ok: false, reason: 'mismatch' };
  }
  return { ok: true, principal: receivedPrincipal(signed) };
}

/**
 * How long past a request's deadline a token the edge signs stays valid, so that the next requests
 * of the same caller on the same subject reuse it instead of being signed again (an Ed25519
 * signature costs about 22 µs, and each distinct token costs every receiver a 60 µs verification:
 * see {@link principalVerifier}'s cache). A captured token is thus good for at most the request
 * timeout plus this long, on its own subject (or the forwarded endpoints) and for its own user.
 */
export const TOKEN_REUSE_MS = 5_000;

/** Signed tokens kept at most (one per caller and subject in use; the oldest goes first). */
const SIGNED_KEPT = 4096;

/**
 * The edge's tokens by caller and subject, reused while they outlive the request's deadline. What
 * keeps it correct: a token is looked up by the whole principal (its JSON) and the subject, so a
 * changed role, scope or space is a different key and gets its own signature; a token is used only
 * while its expiry is at or past the request's deadline, as a fresh one would be.
 */
export class SignedTokens {
  private readonly kept = new Map<string, { token: string; exp: number }>();
  constructor(private readonly signer: PrincipalSigner) {}

  tokenFor(principal: Principal, subject: string, deadline: number): string {
    const key = `${subject}\n${JSON.stringify(principal)}`;
    const held = this.kept.get(key);
    if (held && held.exp >= deadline) return held.token;
    const exp = deadline + TOKEN_REUSE_MS;
    const token = this.signer.sign(principal, subject, exp);
    this.kept.delete(key);
    if (this.kept.size >= SIGNED_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { token, exp });
    return token;
  }
}

/** The token a request for `principal` carries: the one it was received with, or the edge's (kept or new) signature. */
export function tokenFor(
  signer: SignedTokens | undefined,
  subject: string,
  principal: Principal,
  deadline: number,
): string {
  const held = signedPrincipals.get(principal);
  if (held) return held.token;
  if (!signer) {
    throw new Error(`${subject}: a principal not received from the edge cannot be sent (pass ctx.principal on)`);
  }
  return signer.tokenFor(principal, subject, deadline);
}
