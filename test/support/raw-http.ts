import { connect } from 'node:net';

/** What a hostile raw HTTP client saw: the status line's code, bytes of body it got out, and when the edge closed. */
export interface RawOutcome {
  status: number | null;
  /** Body bytes written before the edge stopped taking them. */
  sent: number;
  /** Milliseconds from the first byte to the connection's end. */
  closedAfterMs: number;
  response: string;
}

/**
 * Sends a request byte by byte as a misbehaving client would (Node's and undici's clients refuse
 * some of these shapes): the headers, then the body from `body()` — chunked when `chunked` — at the
 * client's pace, until the body ends or the edge closes the connection.
 */
export function sendRaw(
  url: string,
  opts: {
    path: string;
    headers: Record<string, string>;
    body: () => AsyncIterable<Buffer> | Iterable<Buffer>;
    chunked?: boolean;
    /** Give up after this long (the test fails on it instead of hanging). */
    timeoutMs?: number;
  },
): Promise<RawOutcome> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(u.port), u.hostname);
    let response = '';
    let sent = 0;
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(response);
      resolve({ status: m ? Number(m[1]) : null, sent, closedAfterMs: Date.now() - started, response });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      finish();
    }, opts.timeoutMs ?? 30_000);
    socket.on('data', (d) => {
      response += d.toString('latin1');
    });
    socket.on('close', finish);
    socket.on('error', () => {});
    socket.on('connect', async () => {
      const head = Object.entries({
        host: `${u.hostname}:${u.port}`,
        ...opts.headers,
        ...(opts.chunked ? { 'transfer-encoding': 'chunked' } : {}),
      })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n');
      socket.write(`POST ${opts.path} HTTP/1.1\r\n${head}\r\n\r\n`);
      try {
        for await (const chunk of opts.body()) {
          if (closed || socket.destroyed || socket.writableEnded) return;
          const framed = opts.chunked
            ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
            : chunk;
          if (!socket.write(framed)) {
            await new Promise<void>((r) => {
              const done = () => {
                socket.off('drain', done);
                socket.off('close', done);
                r();
              };
              socket.on('drain', done);
              socket.on('close', done);
            });
          }
          if (!closed) sent += chunk.length;
        }
        if (opts.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      } catch {
        // The edge closed the connection under the write.
      }
    });
  });
}

/** `total` bytes of a JSON string value after `prefix` and before `suffix`, in 64 KB pieces. */
export function* bigJson(prefix: string, total: number, suffix: string): Generator<Buffer> {
  yield Buffer.from(prefix);
  const piece = Buffer.alloc(64 * 1024, 'a');
  for (let n = 0; n < total; n += piece.length) yield piece;
  yield Buffer.from(suffix);
}

/** A body that sends `bytes` one at a time, `everyMs` apart. */
export async function* trickle(bytes: Buffer, everyMs: number): AsyncGenerator<Buffer> {
  for (const b of bytes) {
    yield Buffer.from([b]);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
