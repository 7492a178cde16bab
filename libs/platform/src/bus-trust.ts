import type { Principal } from '@studium/contracts';
import type { PrincipalSigner, PrincipalVerifier, SignedPrincipal, TokenRefusal } from './principal-token.ts';

/**
 * Principals this process received and verified, by object: `request` forwards the token of a
 * principal it finds here, so a handler passes `ctx.principal` on and the signature goes with it,
 * while a principal a service made up itself has no token and cannot be sent.
 */
const signedPrincipals = new WeakMap<Principal, SignedPrincipal>();

/** The principal of a verified token, as a handler receives it: frozen, and passed on with its token. */
export function receivedPrincipal(signed: SignedPrincipal): Principal {
  const principal = Object.freeze(signed.principal);
  signedPrincipals.set(principal, signed);
  return principal;
}

/** How the bus proves and checks callers (see `PRINCIPAL_HEADER`). */
export interface BusTrust {
  /** The edge's key: a request with a principal that is not a forwarded one is signed with it. */
  signer?: PrincipalSigner;
  /** The edge's public key(s): every served request that carries a principal is checked with it. */
  verifier?: PrincipalVerifier;
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

/** The token a request for `principal` carries: the one it was received with, or a new signature. */
export function tokenFor(
  signer: PrincipalSigner | undefined,
  subject: string,
  principal: Principal,
  deadline: number,
): string {
  const held = signedPrincipals.get(principal);
  if (held) return held.token;
  if (!signer) {
    throw new Error(`${subject}: a principal not received from the edge cannot be sent (pass ctx.principal on)`);
  }
  return signer.sign(principal, subject, deadline);
}
