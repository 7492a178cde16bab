import { type ConnectionOptions, createInbox, type NatsConnection } from 'nats';

/** What a process reads from its environment to reach NATS (see {@link BaseConfig}). */
export interface NatsSettings {
  NATS_URL: string;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TOKEN?: string;
}

/**
 * The inbox prefix of a NATS user: `_INBOX_<user>`. Each user may subscribe only to its own
 * inboxes (the generated permissions), so no process reads the replies another one asked for.
 */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/**
 * Connection options from the environment: credentials when set, the user's own inbox prefix.
 * `noAsyncTraces`: the client would otherwise build an Error (a stack trace) for every request it
 * sends, to show where a request that later times out was made; on the bus's hot path that was
 * 4–5 % of the edge's and lessons' CPU (lesson-loop profiles). Our failures name the subject
 * (see `Failure` in bus.ts), which is what a timeout's log line needs.
 */
export function natsOptions(settings: NatsSettings, name: string): ConnectionOptions {
  const user = settings.NATS_USER?.trim();
  return {
    servers: settings.NATS_URL,
    name,
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
    ...(user ? { user, pass: settings.NATS_PASSWORD ?? '', inboxPrefix: inboxPrefixOf(user) } : {}),
    ...(settings.NATS_TOKEN ? { token: settings.NATS_TOKEN } : {}),
  };
}

/** A new inbox subject under the connection's own inbox prefix (for replies that are not request/reply). */
export function newInbox(nc: NatsConnection): string {
  return createInbox((nc as unknown as { options?: ConnectionOptions }).options?.inboxPrefix);
}
