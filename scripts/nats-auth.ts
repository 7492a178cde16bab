// NATS users and subject permissions, one user per deployable (docs/decisions.md, "Trust model").
// The same table writes the deployment config (passwords from the environment) and the one
// `npm start` and the tests run nats-server with (passwords generated).
import { randomBytes } from 'node:crypto';
import { type EventKey, events } from '@studium/contracts';
import { durablePlan, homeworkBucket, inboxPrefixOf, streamNames } from '@studium/platform';

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
    'homework.returned_homework',
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

/**
 * The durables through which each service reads the events stream, and the events each takes
 * (`startEventConsumer`'s `on`): kept in step with the code by `test/nats-auth.test.ts`. A
 * service may create, read and acknowledge only these durables, each with its filter in the
 * request subject (one durable per event: `durablePlan`), so it can neither read an event it
 * does not consume nor touch another service's durable. `reporting`'s read models take most of
 * the stream in one durable (`filtered: false`: its filters travel in the request body, which no
 * permission can pin; see docs/decisions.md, "Least privilege on the bus").
 */
export const CONSUMERS: Partial<Record<NatsUser, Array<{ durable: string; events: EventKey[] | 'body-filtered' }>>> = {
  courses: [{ durable: 'courses-sessions', events: ['lessons.session_started'] }],
  enrollment: [
    { durable: 'enrollment-catalog', events: ['courses.course_card_changed'] },
    { durable: 'enrollment-progress', events: ['lessons.lesson_passed', 'lessons.lesson_failed'] },
  ],
  homework: [
    { durable: 'homework-lessons', events: ['lessons.lesson_passed', 'lessons.session_started'] },
    { durable: 'homework-access', events: ['enrollment.access_changed'] },
  ],
  lessons: [
    { durable: 'lessons-releases', events: ['courses.release_published'] },
    { durable: 'lessons-access', events: ['enrollment.access_changed'] },
  ],
  reporting: [{ durable: 'reporting-read-models', events: 'body-filtered' }],
};

/**
 * The JetStream API of one user on the events stream: the stream's info and create (every
 * publisher ensures it), and for each of its durables create with its filter, info, pull and
 * acknowledge. No listing, no deleting, no direct or stored-message gets, no consumer of another
 * name (an ephemeral or ordered consumer would read any subject).
 */
function eventsApi(user: NatsUser, prefix: string): string[] {
  const { stream, subject } = streamNames(prefix);
  const api = [`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`];
  for (const c of CONSUMERS[user] ?? []) {
    const own = (name: string) => [
      `$JS.API.CONSUMER.INFO.${stream}.${name}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
      `$JS.ACK.${stream}.${name}.>`,
    ];
    if (c.events === 'body-filtered') {
      // nats.js sends a create with `filter_subjects` (NATS 2.10+) to the older DURABLE.CREATE subject.
      api.push(
        `$JS.API.CONSUMER.CREATE.${stream}.${c.durable}`,
        `$JS.API.CONSUMER.CREATE.${stream}.${c.durable}.>`,
        `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${c.durable}`,
      );
      api.push(...own(c.durable));
      continue;
    }
    const subjects = c.events.map((e) => events[e].subject);
    for (const plan of durablePlan(c.durable, subjects, false)) {
      api.push(
        `$JS.API.CONSUMER.CREATE.${stream}.${plan.name}.${subject(plan.subjects[0] as string)}`,
        ...own(plan.name),
      );
      // The durable of the other mode it takes over from: its info (where it stopped), no more.
      for (const replaced of plan.replaces) api.push(`$JS.API.CONSUMER.INFO.${stream}.${replaced}`);
    }
  }
  return [...new Set(api)];
}

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
    // The operator's CLI acts as the edge does (it holds the edge's signing key), replays events
    // and asks the services API for its stats ($SRV).
    return { publish: [p('>'), '$JS.API.>', '$O.>', '$JS.ACK.>', '$SRV.>'], subscribe: [inbox, p('>')] };
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
        // Requests to every service, and the chat's controls (`ai-chat.control.<token>`).
        ...SERVED.map((s) => p(`${s}.>`)),
        ...objects,
      ],
      // A streamed answer's frames come on `edge.frames.<token>`, never into the edge's inbox.
      subscribe: [...base.subscribe, principalChanged, p('edge.frames.>')],
    };
  }
  const own = [p(`${user}.>`), '$SRV.>'];
  const publish = [...base.publish, ...REQUESTS[user].map(p), p(`evt.${user}.>`), ...eventsApi(user, prefix)];
  const subscribe = [...base.subscribe, ...own];
  if (user === 'enrollment') publish.push(principalChanged);
  if (user === 'enrollment' || user === 'lessons') subscribe.push(principalChanged);
  if (user === 'homework') publish.push(...objects);
  // ai-chat streams an answer's frames to the subject the edge named (`edge.frames.<token>`).
  // Nothing but allow_responses lets a process publish into another's inbox: only the process a
  // request went to can answer it, once (docs/decisions.md, "Trust model").
  if (user === 'ai-chat') publish.push(p('edge.frames.>'));
  return { publish, subscribe };
}

const quote = (s: string) => JSON.stringify(s);

/** What each user's lists amount to, written above them in the generated config (for an operator). */
const ROLE: Record<NatsUser, string> = {
  edge: 'asks every service; hears answer frames on edge.frames.<token>; reads homework files; reads no events',
  enrollment: 'serves enrollment.*; publishes evt.enrollment.*; reads its durables only',
  courses: 'serves courses.*; publishes evt.courses.*; reads its durables only',
  lessons: 'serves lessons.*; publishes evt.lessons.*; reads its durables only',
  homework: 'serves homework.*; publishes evt.homework.*; reads its durables only; writes homework files',
  knowledge: 'serves knowledge.*; publishes evt.knowledge.*; reads no events',
  reporting: 'serves reporting.*; reads the events of its read models through its one durable',
  'ai-chat': 'serves ai-chat.*; sends answer frames to edge.frames.<token>; reads no events',
  mailer: 'serves nothing; asks enrollment for mail deliveries and closes them',
  operator: 'the CLI (releases, seeding, dead letters, reporting rebuild): everything under the prefix',
};

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
      `    # ${user}: ${ROLE[user]}. Replies only to what it was asked (allow_responses).`,
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
