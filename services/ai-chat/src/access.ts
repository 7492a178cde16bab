import { isChatUser } from '@studium/contracts';
import { type CallContext, Failure } from '@studium/platform';
import { chatRoleRequired } from './refusals.ts';

/** The caller's user when the chat is open to them, or the refusal. */
export type ChatAccess = { ok: true; user: string } | ReturnType<typeof chatRoleRequired>;

/** Checks the caller's roles; the edge checks them too, but the service does not rely on it. */
export function chatCaller(ctx: CallContext): ChatAccess {
  if (!ctx.principal) throw new Failure(401, 'no principal');
  if (!isChatUser(ctx.principal.roles)) return chatRoleRequired();
  return { ok: true, user: ctx.principal.user };
}
