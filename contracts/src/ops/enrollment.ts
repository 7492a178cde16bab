import { z } from 'zod';
import { Principal } from '../principal.ts';
import { defineOperation } from '../tool.ts';

/** Resolves a bearer token to its principal (edge → enrollment); refusal `token_invalid` when unknown, expired or revoked. */
export const resolveToken = defineOperation({
  subject: 'enrollment.resolve_token',
  signedReply: true,
  input: z.object({ token: z.string() }),
  output: z.object({
    principal: Principal,
    /** When the token stops working; null = never. */
    expires_at: z.string().nullable(),
  }),
});

/**
 * Core NATS subject (not request/reply) on which enrollment announces that a user's principal
 * changed (space selected, token revoked, roles changed): edges drop their cached principals.
 */
export const PRINCIPAL_CHANGED = 'enrollment.principal_changed';

/** Payload of {@link PRINCIPAL_CHANGED}. */
export const PrincipalChanged = z.object({ user: z.string() });
export type PrincipalChanged = z.infer<typeof PrincipalChanged>;

/**
 * publish_course of an announced course (courses → enrollment): marks every not-yet-notified
 * subscription of the course notified and, in the same transaction, queues one release e-mail per
 * subscriber through the outbox (BullMQ job id `release-mail:<course>:<user>`, so one e-mail per
 * subscriber, ever). Returns how many subscribers were notified now (0 when called again).
 */
export const notifySubscribers = defineOperation({
  subject: 'enrollment.notify_subscribers',
  input: z.object({ course: z.string(), title: z.string(), summary: z.string() }),
  output: z.object({ notified: z.number().int() }),
});

/** A release e-mail delivery: the job id enrollment gave it first (`release-mail:<course>:<user>`). */
const DeliveryId = z.string().min(1).max(600);

/**
 * The state of one release e-mail delivery (mailer → enrollment, before sending): `pending` until
 * the mailer reported the SMTP server's acceptance (`sent`) or permanent refusal (`rejected`);
 * `unknown` for an id enrollment never recorded.
 */
export const mailDeliveryState = defineOperation({
  subject: 'enrollment.mail_delivery_state',
  input: z.object({ delivery: DeliveryId }),
  output: z.object({ state: z.enum(['pending', 'sent', 'rejected', 'unknown']) }),
});

/**
 * Closes a release e-mail delivery (mailer → enrollment, right after the SMTP server answered and
 * before the job is acknowledged). `recorded` is false when it was closed already (a resend).
 */
export const mailDelivered = defineOperation({
  subject: 'enrollment.mail_delivered',
  input: z.object({
    delivery: DeliveryId,
    outcome: z.enum(['sent', 'rejected']),
    detail: z.string().max(500).optional(),
  }),
  output: z.object({ recorded: z.boolean() }),
});

/** Decodes a {@link PRINCIPAL_CHANGED} message; null when it is not one. */
export function decodePrincipalChanged(data: Uint8Array): PrincipalChanged | null {
  try {
    const parsed = PrincipalChanged.safeParse(JSON.parse(new TextDecoder().decode(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Checks a platform user's password at the edge's sign-in page (edge → enrollment); refusal
 * `login_failed` for an unknown login, no password set or a wrong password (one answer for all).
 */
export const verifyPassword = defineOperation({
  subject: 'enrollment.verify_password',
  signedReply: true,
  input: z.object({ login: z.string().max(320), password: z.string().max(200) }),
  output: z.object({ user: z.string(), full_name: z.string() }),
});

/**
 * The principal of an OAuth access token's user (edge → enrollment): `scope` is the token's,
 * `issued_at` (epoch seconds) is compared with the user's last access revocation; refusal
 * `token_invalid` when the user is gone or their access was revoked after the token was issued.
 */
export const resolveUser = defineOperation({
  subject: 'enrollment.resolve_user',
  signedReply: true,
  input: z.object({ user: z.string(), scope: z.enum(['read', 'write']), issued_at: z.number() }),
  output: z.object({ principal: Principal, expires_at: z.string().nullable() }),
});

/**
 * Whether a login is a platform user (courses → enrollment, before grant_tester writes): a grant
 * for a login that is no user would never be used.
 */
export const knownUser = defineOperation({
  subject: 'enrollment.known_user',
  input: z.object({ user: z.string().max(320) }),
  output: z.object({ known: z.boolean() }),
});
