// A scripted OpenAI-compatible provider for the chat benchmark: every answer is TOKENS pieces at
// TOKENS_PER_SECOND, the first one at once. Prints "READY <port>".
import { startScriptedLlm } from '@studium/testing';

const tokens = Number(process.env.TOKENS ?? 100);
const perSecond = Number(process.env.TOKENS_PER_SECOND ?? 50);
const llm = await startScriptedLlm({
  chunks: Array.from({ length: tokens }, (_, i) => `т${i} `),
  delayMs: 1000 / perSecond,
  usage: { prompt: 200, completion: tokens },
});
// Requests are recorded for the tests; a benchmark must not keep them all.
setInterval(() => llm.requests.splice(0), 1000).unref();
console.log(`READY ${new URL(llm.url).port}`);
process.on('SIGTERM', () => void llm.close().then(() => process.exit(0)));
