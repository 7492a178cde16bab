// The scripted tutor model for `npm run bench:tutor`, in its own process: the scripted
// OpenAI-compatible server answering as test/support/scripted-tutor.ts does (start_lesson, the
// items, the quiz, the answers), every answer's first piece after FIRST_MS and its pieces PIECE_MS
// apart. Prints "READY <port>".
import { startScriptedLlm } from '@studium/testing';
import { scriptedTutor } from '../test/support/scripted-tutor.ts';

const first = Number(process.env.FIRST_MS ?? 150);
const piece = Number(process.env.PIECE_MS ?? 20);
const lesson = process.env.LESSON ?? '';
const llm = await startScriptedLlm();
const tutor = scriptedTutor({ start: { lesson } });
llm.script((req) => {
  const s = tutor(req);
  // Text in a few pieces, as a model writes it.
  const text = (s.chunks ?? []).join('');
  const chunks = text ? (text.match(/[\s\S]{1,12}/g) ?? []) : [];
  return { ...s, chunks, firstDelayMs: first, delayMs: piece };
});
// Requests are recorded for the tests; a benchmark must not keep them all.
setInterval(() => llm.requests.splice(0), 1000).unref();
console.log(`READY ${new URL(llm.url).port}`);
process.on('SIGTERM', () => void llm.close().then(() => process.exit(0)));
