// The client checks of client_checks.mjs (openai Responses API, Vercel AI SDK, LangChain JS)
// against llmserve with the sim backend, plus lenient requests as the SDKs send them.
// Run: LLMSERVE=path/to/llmserve node --test tests/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { registerClientTests } from './client_checks.mjs';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const binary = process.env.LLMSERVE;
if (!binary) throw new Error('set LLMSERVE to the llmserve binary');

const model = 'test-model';
let server;
before(async () => {
  server = await startLlmserve(binary, ['--model', 'Llama-3.2-1B', '--served-model-name', model,
                                        '--step-time-scale', '0.01']);
});
after(async () => {
  if (process.env.E2E_SHOW_LOG) console.log(server.log());
  await stopLlmserve(server);
});

registerClientTests(() => ({ baseURL: `${server.root}/v1`, model }));

test('fields the server does not know are accepted and logged by name', async () => {
  const client = new OpenAI({ baseURL: `${server.root}/v1`, apiKey: 'unused', maxRetries: 0 });
  const r = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'hi', x_message_field: true }], max_tokens: 2,
    x_future_field: { nested: 1 },  // as a newer SDK might send
  });
  assert.equal(r.choices.length, 1);
  const line = /ignored fields the server does not know: "x_future_field", "messages\[0\]\.x_message_field"/;
  for (let i = 0; i < 100 && !line.test(server.log()); ++i) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.match(server.log(), line);
});
