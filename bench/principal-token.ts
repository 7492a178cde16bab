// `npx tsx bench/principal-token.ts`: the cost of a signed principal on the bus hot path — one
// Ed25519 signature at the edge and one verification per served request (docs/decisions.md, Trust model).
import { generateEdgeKeys, principalSigner, principalVerifier } from '@studium/platform';

const keys = generateEdgeKeys();
const signer = principalSigner(keys.privateKey);
const verifier = principalVerifier(keys.publicKey);
const principal = {
  user: 'student@demo.studium',
  full_name: 'Анна Ученица',
  roles: ['Student'],
  scope: 'write' as const,
  space: 'acme',
};
const N = Number(process.env.BENCH_N ?? 20_000);

function time(label: string, fn: (i: number) => unknown): void {
  for (let i = 0; i < 1000; i++) fn(i);
  const t = performance.now();
  for (let i = 0; i < N; i++) fn(i);
  console.log(`${label.padEnd(8)} ${(((performance.now() - t) * 1000) / N).toFixed(1)} µs per call`);
}

const exp = Date.now() + 60_000;
const token = signer.sign(principal, 'lessons.mark_goal', exp);
time('sign', () => signer.sign(principal, 'lessons.mark_goal', exp));
time('verify', () => verifier.verify(token));
console.log(`token    ${token.length} bytes in the header`);
