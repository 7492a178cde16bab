// Hostile clients of `npm run bench:hostile`, in their own process (so that making their traffic
// does not slow the measuring process): oversized chunked bodies, JSON nested 5,000 deep, slow
// trickles, batches of tools/list, unauthenticated 50 MB bodies and 488 KB invalid create_notes
// calls (244,000 numbers where notes belong), each in a loop against the edge
// at EDGE_URL with the attacker's TOKEN, until killed. Prints a count of answers per kind on SIGTERM.
import { connect } from 'node:net';

const base = new URL(process.env.EDGE_URL ?? 'http://127.0.0.1:8080');
const token = process.env.TOKEN ?? '';
const counts: Record<string, Record<string, number>> = {};
const count = (kind: string, outcome: string) => {
  counts[kind] ??= {};
  counts[kind][outcome] = (counts[kind][outcome] ?? 0) + 1;
};

/** One raw request (headers, then `body` pieces at the client's pace); resolves with the status or 'closed'. */
function raw(headers: Record<string, string>, body: () => AsyncIterable<Buffer> | Iterable<Buffer>, chunked: boolean) {
  return new Promise<string>((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    let response = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 'closed');
    };
    socket.on('data', (d) => {
      response += d.toString('latin1');
    });
    socket.on('close', finish);
    socket.on('error', () => {});
    socket.on('connect', async () => {
      const all = { host: base.host, ...headers, ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) };
      socket.write(
        `POST /mcp HTTP/1.1\r\n${Object.entries(all)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n`,
      );
      for await (const piece of body()) {
        if (done || socket.destroyed) return;
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece;
        if (!socket.write(framed)) await new Promise((r) => socket.once('drain', r));
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
    });
  });
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const auth = { ...json, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-03-26' };
const piece = Buffer.alloc(64 * 1024, 'a');

function* big(prefix: string, bytes: number, suffix: string) {
  yield Buffer.from(prefix);
  for (let n = 0; n < bytes; n += piece.length) yield piece;
  yield Buffer.from(suffix);
}

async function* slow(bytes: number) {
  for (let i = 0; i < bytes; i++) {
    yield Buffer.from('a');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const invalidNotes = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'create_notes', arguments: { project: 'p', notes: Array.from({ length: 244_000 }, () => 1) } },
});

const kinds: Record<string, () => Promise<string>> = {
  // A 60 MB choose call without Content-Length.
  oversized: () =>
    raw(
      auth,
      () =>
        big(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"choose","arguments":{"prompt":"x","options":["a"],"title":"',
          60 * 1024 * 1024,
          '"}}}',
        ),
      true,
    ),
  deep: async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}}`;
    const res = await fetch(new URL('/mcp', base), { method: 'POST', headers: auth, body });
    await res.arrayBuffer();
    return String(res.status);
  },
  trickle: () => raw({ ...auth, 'content-length': '100000' }, () => slow(100_000), false),
  batch: async () => {
    const body = JSON.stringify(
      Array.from({ length: 16 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })),
    );
    const res = await fetch(new URL('/mcp', base), { method: 'POST', headers: auth, body });
    await res.arrayBuffer();
    return String(res.status);
  },
  // The review's call (issue 30): within the body limit, every value wrong; zod alone grew the edge by
  // ~200 MB per call before the edge checked large calls to their first problems only.
  invalid: async () => {
    const res = await fetch(new URL('/kb', base), { method: 'POST', headers: auth, body: invalidNotes });
    await res.arrayBuffer();
    return String(res.status);
  },
  unauthenticated: () =>
    raw({ ...json, 'content-length': String(50 * 1024 * 1024) }, () => big('', 50 * 1024 * 1024, ''), false),
};

/** Clients of each kind running at once. */
const parallel: Record<string, number> = {
  oversized: 2,
  deep: 2,
  trickle: 40,
  batch: 6,
  unauthenticated: 2,
  invalid: 3,
};

/** HOSTILE_KINDS=deep,batch runs only those (to see what each costs). */
const only = process.env.HOSTILE_KINDS ? process.env.HOSTILE_KINDS.split(',') : undefined;
for (const [kind, run] of Object.entries(kinds)) {
  if (only && !only.includes(kind)) continue;
  for (let i = 0; i < (parallel[kind] ?? 1); i++) {
    void (async () => {
      for (;;) count(kind, await run().catch(() => 'error'));
    })();
  }
}
process.on('SIGTERM', () => {
  process.stdout.write(`COUNTS ${JSON.stringify(counts)}\n`);
  process.exit(0);
});
console.log('HOSTILE READY');
