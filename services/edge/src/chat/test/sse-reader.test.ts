import { describe, expect, it } from 'vitest';
import { readEvents } from '../web/api.ts';

/** A response whose body arrives in these pieces, as a network would cut it. */
function streamed(pieces: Array<string | Uint8Array>): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (const p of pieces) ctl.enqueue(typeof p === 'string' ? enc.encode(p) : p);
      ctl.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function read(pieces: Array<string | Uint8Array>): Promise<unknown[]> {
  const out: unknown[] = [];
  await readEvents(streamed(pieces), (e) => out.push(e));
  return out;
}

// The reader of the chat's and the tutor's pages (client side of /chat and /tutor).
describe('the pages’ Server-Sent Events reader', () => {
  it('reads the events of spec 001 as the edge writes them, whatever the pieces', async () => {
    const text =
      'data: {"type":"metadata","thread_id":"t"}\n\ndata: {"type":"content","content":"Начните"}\n\ndata: {"type":"done"}\n\n';
    const whole = await read([text]);
    expect(whole).toEqual([
      { type: 'metadata', thread_id: 't' },
      { type: 'content', content: 'Начните' },
      { type: 'done' },
    ]);
    // Cut anywhere, even inside a letter's two bytes: the same events.
    const bytes = new TextEncoder().encode(text);
    expect(await read(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual(whole);
    expect(await read([text.slice(0, 37), text.slice(37, 60), text.slice(60)])).toEqual(whole);
  });

  it('takes CRLF and CR line ends, data without its space, data over several lines, id and retry', async () => {
    const events = await read([
      'id: 1\r\ndata: {"type":"content",\r\ndata: "content":"а"}\r\n\r\n',
      'retry: 1000\rdata:{"type":"content","content":"б"}\r\r',
      'id: 3\ndata: {"type":"done"}\n\n',
    ]);
    expect(events).toEqual([{ type: 'content', content: 'а' }, { type: 'content', content: 'б' }, { type: 'done' }]);
  });

  it('passes over comments, named events, data that is not JSON and an event the stream cut off', async () => {
    const events = await read([
      ': keep-alive\n\n',
      'event: ping\ndata: {"type":"content","content":"чужое"}\n\n',
      'event: message\ndata: {"type":"content","content":"наше"}\n\n',
      'data: not json\n\n',
      'data: {"type":"done"}',
    ]);
    expect(events).toEqual([{ type: 'content', content: 'наше' }]);
  });
});
