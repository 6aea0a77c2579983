// llmserve as a test double (docs/test-double.md) seen through the official `openai` npm client:
// each injected failure arrives as the SDK's error class for its status (RateLimitError for 429,
// ...) with the error body's type, a forced X-Return-Error too, the admin API switches faults on
// and off between requests, and a stream cut mid-way fails the client's iteration.
// Run: LLMSERVE=path/to/llmserve node --test tests/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const binary = process.env.LLMSERVE;
if (!binary) throw new Error('set LLMSERVE to the llmserve binary');

let server;
let client;
before(async () => {
  server = await startLlmserve(binary, ['--model', 'Llama-3.2-1B', '--served-model-name',
                                        'test-model', '--step-time-scale', '0',
                                        '--enable-admin-api', '--enable-fault-headers'], 15000);
  client = new OpenAI({ baseURL: `${server.root}/v1`, apiKey: 'unused', maxRetries: 0 });
});
after(async () => stopLlmserve(server));

const chat = { model: 'test-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 };

async function setFaults(body) {
  const r = await fetch(`${server.root}/admin/faults`,
                        { method: body ? 'POST' : 'DELETE', body: body && JSON.stringify(body),
                          headers: { 'Content-Type': 'application/json' } });
  assert.equal(r.status, 200, await r.text());
}

test('X-Return-Error: 429 is the SDK\'s RateLimitError', async () => {
  await assert.rejects(
    client.chat.completions.create(chat, { headers: { 'X-Return-Error': '429' } }),
    (e) => e instanceof OpenAI.RateLimitError && e.status === 429 && e.type === 'RateLimitError');
});

test('each injected failure type is its SDK error class', async () => {
  const table = [
    ['rate_limit', OpenAI.RateLimitError, 429],
    ['server_error', OpenAI.InternalServerError, 500],
    ['context_length', OpenAI.BadRequestError, 400],
    ['invalid_request', OpenAI.BadRequestError, 400],
    ['model_not_found', OpenAI.NotFoundError, 404],
    ['invalid_api_key', OpenAI.AuthenticationError, 401],
  ];
  try {
    for (const [type, errorClass, status] of table) {
      await setFaults({ failure_rate: 1, failure_types: [type] });
      await assert.rejects(client.chat.completions.create(chat),
                           (e) => e instanceof errorClass && e.status === status, type);
    }
  } finally {
    await setFaults(null);
  }
  const ok = await client.chat.completions.create(chat);
  assert.equal(ok.choices[0].finish_reason === 'length' || ok.choices[0].finish_reason === 'stop',
               true);
});

test('a stream cut after two events fails the client\'s iteration', async () => {
  const stream = await client.completions.create(
    { model: 'test-model', prompt: 'Hello', max_tokens: 30, ignore_eos: true, stream: true },
    { headers: { 'X-Fault-Cut-After': '2' } });
  let chunks = 0;
  await assert.rejects((async () => {
    for await (const _ of stream) ++chunks;  // eslint-disable-line no-unused-vars
  })());
  assert.equal(chunks, 2);
});
