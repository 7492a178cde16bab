// `npm run secrets -- env|k8s`: fresh secrets of a deployment — the edge's key pair for signed
// principals, enrollment's for signed identity replies, one NATS password per user and the homework file-URL key — as a .env file for
// docker-compose or as k8s Secrets.
import { randomBytes } from 'node:crypto';
import { generateEdgeKeys } from '@studium/platform';
import { NATS_USERS, newNatsPassword, passwordVariable } from './nats-auth.ts';

const keys = generateEdgeKeys();
// Enrollment's reply key pair: it signs token and user lookups, the edge checks them.
const replyKeys = generateEdgeKeys();
const nats = Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), newNatsPassword()]));
// The edge and homework sign download links with it and refuse to start without a strong one.
const fileUrlSecret = randomBytes(32).toString('hex');
const format = process.argv[2] ?? 'env';

if (format === 'env') {
  const lines = {
    EDGE_SIGNING_KEY: keys.privateKey,
    EDGE_PUBLIC_KEY: keys.publicKey,
    ENROLLMENT_SIGNING_KEY: replyKeys.privateKey,
    ENROLLMENT_PUBLIC_KEY: replyKeys.publicKey,
    FILE_URL_SECRET: fileUrlSecret,
    ...nats,
  };
  console.log(
    Object.entries(lines)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
} else if (format === 'k8s') {
  const secret = (name: string, data: Record<string, string>, note: string) =>
    [
      `# ${note}`,
      'apiVersion: v1',
      'kind: Secret',
      `metadata: { name: ${name}, labels: { app.kubernetes.io/part-of: studium } }`,
      'type: Opaque',
      'stringData:',
      ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    ].join('\n');
  console.log(
    [
      secret('studium-edge-key', { EDGE_SIGNING_KEY: keys.privateKey }, 'Only the edge mounts this one.'),
      secret(
        'studium-enrollment-key',
        { ENROLLMENT_SIGNING_KEY: replyKeys.privateKey },
        'Only enrollment mounts this one.',
      ),
      secret('studium-nats', nats, 'The NATS server and each service (its own key).'),
      `# Public: put them in the ConfigMap studium-config.\n# EDGE_PUBLIC_KEY: ${keys.publicKey}\n# ENROLLMENT_PUBLIC_KEY: ${replyKeys.publicKey}`,
      `# Put it in the Secret studium-secrets (k8s/config.yaml), in place of the placeholder.\n# FILE_URL_SECRET: ${fileUrlSecret}`,
    ].join('\n---\n'),
  );
} else {
  console.error('usage: npm run secrets -- env|k8s');
  process.exit(2);
}
