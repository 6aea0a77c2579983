// End-to-end tests of llmserve with the official `openai` npm client: the SDK must read our
// responses, streams, usage and per-request `metrics` exactly as it reads vLLM's.
// Run: LLMSERVE=path/to/llmserve node --test tests/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const binary = process.env.LLMSERVE;
if (!binary) throw new Error('set LLMSERVE to the llmserve binary');

// llmserve with the sim model as "test-model" and `extraArgs`; resolves with { child, baseURL }.
async function startServer(extraArgs) {
  const server = await startLlmserve(binary, ['--model', 'Llama-3.2-1B', '--served-model-name',
                                              'test-model', '--step-time-scale', '0.01',
                                              ...extraArgs], 15000);
  return { ...server, baseURL: `${server.root}/v1` };
}

let server;
let client;
before(async () => {
  server = await startServer(['--enable-per-request-metrics']);
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'unused', maxRetries: 0 });
});
after(async () => stopLlmserve(server));

const metricFields = ['time_to_first_token_ms', 'generation_time_ms', 'queue_time_ms',
                      'mean_itl_ms', 'tokens_per_second'];

test('chat completion with usage and per-request metrics', async () => {
  const r = await client.chat.completions.create({
    model: 'test-model',
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
    max_tokens: 12,
    ignore_eos: true,
  });
  assert.equal(r.object, 'chat.completion');
  assert.match(r.id, /^chatcmpl-/);
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.ok(r.choices[0].message.content.length > 0);
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, 12);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + 12);
  assert.ok(r.metrics, 'metrics object present');
  for (const f of metricFields) assert.equal(typeof r.metrics[f], 'number', f);
  assert.ok(Math.abs(r.metrics.mean_itl_ms - r.metrics.generation_time_ms / 11) < 1e-6);
});

test('completions: two prompts give prompt_index * n + i choices and null metrics', async () => {
  const r = await client.completions.create({
    model: 'test-model', prompt: ['one two three', 'four five'], max_tokens: 3, n: 2,
    ignore_eos: true,
  });
  assert.equal(r.object, 'text_completion');
  assert.deepEqual(r.choices.map((c) => c.index).sort(), [0, 1, 2, 3]);
  assert.equal(r.usage.completion_tokens, 12);
  assert.equal(r.metrics, null);
});

test('n = 2 chat completion has two choices and null metrics', async () => {
  const r = await client.chat.completions.create({
    model: 'test-model', messages: [{ role: 'user', content: 'hi' }], n: 2, max_tokens: 4,
  });
  assert.equal(r.choices.length, 2);
  assert.equal(r.metrics, null);
});

test('streaming chat with include_usage ends with a usage chunk carrying metrics', async () => {
  const stream = await client.chat.completions.create({
    model: 'test-model', messages: [{ role: 'user', content: 'Tell me a story' }],
    max_tokens: 8, ignore_eos: true, stream: true, stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.ok(text.length > 0);
  const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
  assert.equal(finish.length, 1);
  assert.equal(finish[0].choices[0].finish_reason, 'length');
  const last = chunks[chunks.length - 1];
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.completion_tokens, 8);
  for (const f of metricFields) assert.equal(typeof last.metrics[f], 'number', f);
  for (const c of chunks.slice(0, -1)) assert.equal(c.usage ?? null, null);
});

test('streaming completions without include_usage send no usage chunk', async () => {
  const stream = await client.completions.create({
    model: 'test-model', prompt: 'Once upon a time', max_tokens: 5, ignore_eos: true, stream: true,
  });
  let text = '';
  let last;
  for await (const chunk of stream) {
    last = chunk;
    text += chunk.choices[0]?.text ?? '';
  }
  assert.ok(text.length > 0);
  assert.equal(last.choices[0].finish_reason, 'length');
  assert.equal(last.usage ?? null, null);
});

test('errors reach the SDK as typed exceptions', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.NotFoundError && /does not exist/.test(e.message));
  await assert.rejects(
    client.completions.create({ model: 'test-model', prompt: 'x', max_tokens: 10_000_000 }),
    (e) => e instanceof OpenAI.BadRequestError && /maximum context length/.test(e.message));
});

test('--enable-prompt-tokens-details: cached_tokens and created_cache_tokens in usage', async () => {
  const details = await startServer(['--enable-prompt-tokens-details']);
  try {
    const c = new OpenAI({ baseURL: details.baseURL, apiKey: 'unused', maxRetries: 0 });
    // 40 token ids: two full 16-token blocks. The first request writes them into the prefix
    // cache, the second finds them (vLLM's PromptTokenUsageInfo; 0 is printed, not left out).
    const prompt = Array.from({ length: 40 }, (_, i) => 2000 + i);
    const ask = () => c.completions.create({ model: 'test-model', prompt, max_tokens: 2,
                                             ignore_eos: true });
    const first = await ask();
    assert.deepEqual(first.usage.prompt_tokens_details,
                     { cached_tokens: 0, created_cache_tokens: 32 });
    const second = await ask();
    assert.deepEqual(second.usage.prompt_tokens_details,
                     { cached_tokens: 32, created_cache_tokens: 0 });
    assert.equal(second.usage.prompt_tokens, 40);
    // The Responses API: cached_tokens always, cache_write_tokens with the flag (the same count).
    const input = 'Tell me a long story about a lighthouse keeper who counts the waves every ' +
                  'night and writes each number in a small blue notebook by the window.';
    const r1 = await c.responses.create({ model: 'test-model', input, max_output_tokens: 2 });
    const written = r1.usage.input_tokens_details.cache_write_tokens;
    assert.equal(r1.usage.input_tokens_details.cached_tokens, 0);
    assert.ok(written > 0 && written % 16 === 0 && written <= r1.usage.input_tokens, `${written}`);
    const r2 = await c.responses.create({ model: 'test-model', input, max_output_tokens: 2 });
    assert.deepEqual(r2.usage.input_tokens_details,
                     { cached_tokens: written, cache_write_tokens: 0 });
  } finally {
    await stopLlmserve(details);
  }
  // Without the flag (the shared server) there are no details.
  const plain = await client.completions.create({ model: 'test-model', prompt: 'a b c',
                                                  max_tokens: 1 });
  assert.equal(plain.usage.prompt_tokens_details, undefined);
});

test("vLLM's admission caps: a 503 the SDK reports with vLLM's message", async () => {
  // Caps of 0 refuse every generation (vLLM's check_admission), and nothing else.
  for (const [flag, message] of [['--max-num-queued-reqs', /currently busy/],
                                 ['--max-num-queued-tokens', /prefill token backlog limit/]]) {
    const capped = await startServer([flag, '0']);
    try {
      const c = new OpenAI({ baseURL: capped.baseURL, apiKey: 'unused', maxRetries: 0 });
      await assert.rejects(
        c.completions.create({ model: 'test-model', prompt: 'x', max_tokens: 2 }),
        (e) => e instanceof OpenAI.InternalServerError && e.status === 503 &&
               message.test(e.message));
      const models = await c.models.list();
      assert.equal(models.data[0].id, 'test-model');
    } finally {
      await stopLlmserve(capped);
    }
  }
});

test('api key: the right key works, a wrong one is a 401', async () => {
  const secured = await startServer(['--api-key', 'sekret']);
  try {
    const good = new OpenAI({ baseURL: secured.baseURL, apiKey: 'sekret', maxRetries: 0 });
    const models = await good.models.list();
    assert.equal(models.data[0].id, 'test-model');
    const bad = new OpenAI({ baseURL: secured.baseURL, apiKey: 'wrong', maxRetries: 0 });
    await assert.rejects(bad.models.list(), (e) => e instanceof OpenAI.AuthenticationError);
  } finally {
    await stopLlmserve(secured);
  }
});

test('responses: per-request metrics in the body and in the stream\'s final response', async () => {
  const r = await client.responses.create({
    model: 'test-model', input: 'What is the capital of France?', max_output_tokens: 6,
  });
  assert.equal(r.usage.output_tokens, 6);
  for (const f of metricFields) assert.equal(typeof r.metrics[f], 'number', f);
  const stream = await client.responses.create({
    model: 'test-model', input: 'What is the capital of France?', max_output_tokens: 6,
    stream: true,
  });
  let last;
  for await (const event of stream) last = event;
  assert.equal(last.type, 'response.incomplete');
  assert.equal(last.response.usage.output_tokens, 6);
  for (const f of metricFields) assert.equal(typeof last.response.metrics[f], 'number', f);
});
