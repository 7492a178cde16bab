// The NATS `npm start` runs the platform on: by default its own nats-server (Debian's binary) with
// the deployment's scheme — a user per service, subject permissions, passwords in the environment
// (scripts/nats-auth.ts) — on NATS_PORT, JetStream under STUDIUM_HOME/nats. With NATS_URL set, or
// without the binary, the given (unauthenticated) server instead.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { NatsUser } from './nats-auth.ts';
import { NATS_SERVER, startOwnNats } from './nats-server.ts';

export interface StartNats {
  url: string;
  /** The environment of a process that connects as `user` (empty on an unauthenticated server). */
  envFor(user: NatsUser): Record<string, string>;
  /** How the platform reaches NATS, for the start-up banner. */
  describe: string;
  stop(): Promise<void>;
}

export async function startNats(opts: { home: string; prefix: string; port: number }): Promise<StartNats> {
  const given = process.env.NATS_URL;
  if (given || !existsSync(NATS_SERVER)) {
    const url = given ?? 'nats://127.0.0.1:4222';
    return { url, envFor: () => ({}), describe: `${url} (no users: NATS_URL was given)`, stop: async () => {} };
  }
  const own = await startOwnNats(resolve(opts.home, 'nats'), opts.prefix, opts.port);
  return {
    url: own.url,
    envFor: (user) => own.envFor(user),
    describe: `${own.url} (own nats-server, a user per service; log ${own.logFile})`,
    stop: () => own.stop(),
  };
}
