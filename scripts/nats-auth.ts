// NATS users and subject permissions, one user per deployable (docs/decisions.md, "Trust model").
// The same table writes the deployment config (passwords from the environment) and the one
// `npm start` and the tests run nats-server with (passwords generated).
import { randomBytes } from 'node:crypto';
import { homeworkBucket, inboxPrefixOf, streamNames } from '@studium/platform';

/** The users: every deployable on the bus, and `operator` for the CLI (releases, seeding, dead letters). */
export const NATS_USERS = [
  'edge',
  'enrollment',
  'courses',
  'lessons',
  'homework',
  'knowledge',
  'reporting',
  'ai-chat',
  'mailer',
  'operator',
] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** Services whose subjects the edge calls (tool subjects and the internal operations it asks). */
const SERVED = ['enrollment', 'courses', 'lessons', 'homework', 'knowledge', 'reporting', 'ai-chat'] as const;

/**
 * Subjects a service requests from others (besides being served): kept in step with the code by
 * `test/nats-auth.test.ts`, which reads every `bus.request` of each service.
 */
export const REQUESTS: Record<(typeof SERVED)[number], string[]> = {
  enrollment: [],
  courses: ['enrollment.notify_subscribers', 'enrollment.known_user'],
  lessons: [
    'enrollment.my_enrollments',
    'enrollment.list_my_courses',
    'enrollment.course_access',
    'courses.release_content',
    'courses.take_closed_reports',
    'homework.lesson_context',
    'homework.empty_blocks',
    'knowledge.lesson_history',
  ],
  homework: [
    'enrollment.whoami',
    'enrollment.my_enrollments',
    'enrollment.course_access',
    'courses.release_content',
    'lessons.session_progress',
  ],
  knowledge: ['enrollment.whoami', 'lessons.session_course'],
  reporting: [],
  'ai-chat': ['lessons.teaching_rules'],
};

/** The JetStream API a user needs on one stream: info and create, its consumers, acks, direct gets. */
function streamApi(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.CREATE.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.*.*.${stream}`,
    `$JS.API.CONSUMER.*.*.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** publish and subscribe allow-lists of one user under a subject prefix. */
export function permissionsOf(user: NatsUser, prefix: string): { publish: string[]; subscribe: string[] } {
  const p = (s: string) => (prefix ? `${prefix}.${s}` : s);
  const events = streamNames(prefix);
  const bucket = homeworkBucket(prefix);
  // Putting and deleting an object purges its old chunks.
  const objects = [
    ...streamApi(`OBJ_${bucket}`),
    `$JS.API.STREAM.PURGE.OBJ_${bucket}`,
    `$O.${bucket}.>`,
    '$JS.API.STREAM.NAMES',
  ];
  const principalChanged = p('enrollment.principal_changed');
  const inbox = `${inboxPrefixOf(user)}.>`;
  const base = { publish: ['$JS.API.INFO'], subscribe: [inbox] };
  if (user === 'operator') {
    // The operator's CLI acts as the edge does (it holds the edge's signing key) and replays events.
    return { publish: [p('>'), '$JS.API.>', '$O.>', '$JS.ACK.>'], subscribe: [inbox, p('>')] };
  }
  if (user === 'mailer') {
    // The mailer serves nothing: it reads and closes enrollment's deliveries (docs/operations.md).
    return {
      publish: [...base.publish, p('enrollment.mail_delivery_state'), p('enrollment.mail_delivered')],
      subscribe: base.subscribe,
    };
  }
  if (user === 'edge') {
    return {
      publish: [
        ...base.publish,
        ...SERVED.map((s) => p(`${s}.>`)),
        // The chat page's control messages go to the answer's inbox at ai-chat.
        `${inboxPrefixOf('ai-chat')}.>`,
        ...objects,
      ],
      subscribe: [...base.subscribe, principalChanged],
    };
  }
  const own = [p(`${user}.>`), '$SRV.>'];
  const publish = [...base.publish, ...REQUESTS[user].map(p), p(`evt.${user}.>`), ...streamApi(events.stream)];
  const subscribe = [...base.subscribe, ...own];
  if (user === 'enrollment') publish.push(principalChanged);
  if (user === 'enrollment' || user === 'lessons') subscribe.push(principalChanged);
  if (user === 'homework') publish.push(...objects);
  // ai-chat streams an answer's frames to the edge's inbox.
  if (user === 'ai-chat') publish.push(`${inboxPrefixOf('edge')}.>`);
  return { publish, subscribe };
}

const quote = (s: string) => JSON.stringify(s);

/**
 * A new NATS password. nats-server parses the value of a `$VARIABLE` it reads from its
 * environment as a config value: one that starts with a digit is read as a number and the server
 * refuses to start. A letter, then hex digits, is always a plain string.
 */
export function newNatsPassword(): string {
  return `p${randomBytes(24).toString('hex')}`;
}

/** The environment variable with a user's password, for nats-server and for the user's process. */
export function passwordVariable(user: NatsUser): string {
  return `NATS_PASSWORD_${user.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * The `authorization` block of nats-server's config. `passwords` maps a user to its password, or
 * is `env`: each password is `$NATS_PASSWORD_<USER>` from nats-server's environment (deployment).
 */
export function authorizationBlock(prefix: string, passwords: 'env' | Record<NatsUser, string>): string {
  const users = NATS_USERS.map((user) => {
    const perms = permissionsOf(user, prefix);
    const password = passwords === 'env' ? `$${passwordVariable(user)}` : quote(passwords[user]);
    return [
      `    {`,
      `      user: ${quote(user)}`,
      `      password: ${password}`,
      `      permissions: {`,
      `        publish: { allow: [${perms.publish.map(quote).join(', ')}] }`,
      `        subscribe: { allow: [${perms.subscribe.map(quote).join(', ')}] }`,
      // A service answers the requests it takes (replies go to the asker's inbox).
      `        allow_responses: { max: 1, expires: "1m" }`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  return `authorization {\n  users = [\n${users.join('\n')}\n  ]\n}\n`;
}
