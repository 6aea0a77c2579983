// End-to-end test of the real model path: `llmsim make-model` writes a tiny random Llama with a
// real Llama 3 vocabulary and its chat template, `llmserve --backend cpu --model DIR/model.gguf`
// serves it (the template from the model's metadata, no --chat-template), and the
// official `openai` npm client reads chat and completions, streaming and not (and, with the Vercel
// AI SDK and LangChain JS, the checks of client_checks.mjs): usage counts equal
// /tokenize's, greedy streaming equals greedy non-streaming, stop strings cut across token
// boundaries, finish reasons and the per-request `metrics` object.
// Run: LLMSERVE=path/to/llmserve LLMSIM=path/to/llmsim node --test tests/e2e/
// (LLM_TOKENIZERS overrides the vocabulary folder, ../shared/testdata/tokenizers by default.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { registerClientTests } from './client_checks.mjs';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const llmserve = process.env.LLMSERVE;
const llmsim = process.env.LLMSIM;
const here = dirname(fileURLToPath(import.meta.url));
const vocabDir = process.env.LLM_TOKENIZERS ?? join(here, '../../../shared/testdata/tokenizers');
const vocab = join(vocabDir, 'ggml-vocab-llama-bpe.gguf');
const skip = !llmserve || !llmsim ? 'set LLMSERVE and LLMSIM to run the cpu end-to-end test'
  : !existsSync(vocab) ? `no vocabulary at ${vocab}` : false;

const model = 'tiny-llama';
let dir;
let server;
let client;
let root;  // http://host:port (the tokenizer routes are not under /v1)

async function post(path, body) {
  const r = await fetch(root + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

const metricFields = ['time_to_first_token_ms', 'generation_time_ms', 'queue_time_ms',
                      'mean_itl_ms', 'tokens_per_second'];
const messages = [{ role: 'system', content: 'You are terse.' },
                  { role: 'user', content: 'Name three colours, with ünïcödé 🙂.' }];
const prompt = 'The quick brown fox jumps over the lazy dog. Ünïcödé: 世界 🙂';

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'llmserve-cpu-e2e-'));
  execFileSync(llmsim, ['make-model', '--arch', 'llama', '--vocab', vocab, '--dim', '64',
                        '--layers', '2', '--heads', '4', '--kv-heads', '2', '--seed', '1',
                        '--out', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  server = await startLlmserve(llmserve, ['--backend', 'cpu', '--model', join(dir, 'model.gguf'),
                              '--served-model-name', model, '--max-model-len', '256',
                              '--max-num-seqs', '8',
                              '--enable-per-request-metrics']);
  root = server.root;
  client = new OpenAI({ baseURL: `${root}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await stopLlmserve(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The openai client's Responses API, the Vercel AI SDK and LangChain JS on the real model path.
registerClientTests(() => ({ baseURL: `${root}/v1`, model }), skip);

test('usage.prompt_tokens equals /tokenize, for completions and chat', { skip }, async () => {
  const t = await post('/tokenize', { model, prompt });
  assert.equal(t.status, 200);
  assert.equal(t.body.count, t.body.tokens.length);
  assert.equal(t.body.max_model_len, 256);
  const c = await client.completions.create({ model, prompt, max_tokens: 4, temperature: 0 });
  assert.equal(c.usage.prompt_tokens, t.body.count);
  assert.equal(c.usage.completion_tokens, 4);
  assert.equal(c.choices[0].finish_reason, 'length');

  const tc = await post('/tokenize', { model, messages });
  // The chat template came from the model's metadata: Llama 3's prompt, as llmserve renders it.
  const rendered = '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.' +
    '<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nName three colours, with ünïcödé 🙂.' +
    '<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n';
  const tr = await post('/tokenize', { model, prompt: rendered, add_special_tokens: false });
  assert.equal(tr.status, 200);
  assert.deepEqual(tc.body.tokens, tr.body.tokens);
  const chat = await client.chat.completions.create({ model, messages, max_tokens: 3 });
  assert.equal(chat.usage.prompt_tokens, tc.body.count);
  assert.equal(chat.usage.total_tokens, tc.body.count + chat.usage.completion_tokens);
  assert.ok(chat.usage.completion_tokens <= 3);

  const d = await post('/detokenize', { model, tokens: t.body.tokens });
  assert.equal(d.body.prompt, '<|begin_of_text|>' + prompt);
});

test('greedy streaming equals greedy non-streaming; metrics on both', { skip }, async () => {
  const full = await client.chat.completions.create({
    model, messages, max_tokens: 24, temperature: 0, ignore_eos: true,
  });
  assert.equal(full.choices[0].finish_reason, 'length');
  assert.equal(full.usage.completion_tokens, 24);
  for (const f of metricFields) assert.equal(typeof full.metrics[f], 'number', f);

  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 24, temperature: 0, ignore_eos: true, stream: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.equal(text, full.choices[0].message.content);
  const last = chunks[chunks.length - 1];
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.completion_tokens, 24);
  // continuous usage: completion_tokens never decreases and ends at 24.
  const counts = chunks.map((c) => c.usage?.completion_tokens ?? 0);
  for (let i = 1; i < counts.length; ++i) assert.ok(counts[i] >= counts[i - 1]);
  for (const f of metricFields) assert.equal(typeof last.metrics[f], 'number', f);
});

test('stop strings cut the text across token boundaries', { skip }, async () => {
  const full = await client.completions.create({
    model, prompt, max_tokens: 32, temperature: 0, ignore_eos: true,
  });
  const text = full.choices[0].text;
  // A stop string from the middle of the greedy text (avoiding the first few characters).
  const chars = [...text];
  assert.ok(chars.length >= 12, `greedy text too short: ${JSON.stringify(text)}`);
  const stop = chars.slice(6, 9).join('');
  const cut = text.slice(0, text.indexOf(stop));
  const stopped = await client.completions.create({
    model, prompt, max_tokens: 32, temperature: 0, ignore_eos: true, stop: [stop],
  });
  assert.equal(stopped.choices[0].finish_reason, 'stop');
  assert.equal(stopped.choices[0].stop_reason, stop);
  assert.equal(stopped.choices[0].text, cut);
  assert.ok(stopped.usage.completion_tokens < 32);

  // Streaming gives the same cut.
  const stream = await client.completions.create({
    model, prompt, max_tokens: 32, temperature: 0, ignore_eos: true, stop: [stop], stream: true,
  });
  let streamed = '';
  let finish;
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.text ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(streamed, cut);
  assert.equal(finish, 'stop');
});

test('without max_tokens a request runs to the context limit', { skip }, async () => {
  const r = await client.completions.create({ model, prompt, ignore_eos: true, temperature: 0 });
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.prompt_tokens + r.usage.completion_tokens, 256);
});

test('the sampling controls the openai client sends reach the sampler', { skip }, async () => {
  const base = { model, prompt, max_tokens: 8, temperature: 0, ignore_eos: true };
  const free = await client.completions.create(base);
  // logit_bias of 100 makes one token the greedy choice at every step.
  const id = (await post('/tokenize', { model, prompt: ' blue', add_special_tokens: false }))
    .body.tokens[0];
  const biased = await client.completions.create({ ...base, logit_bias: { [id]: 100 } });
  const eight = await post('/detokenize', { model, tokens: Array(8).fill(id) });
  assert.equal(biased.choices[0].text, eight.body.prompt);
  // vLLM's allowed_token_ids (a body field the client passes through): only that token, too.
  const allowed = await client.completions.create({ ...base, allowed_token_ids: [id] });
  assert.equal(allowed.choices[0].text, eight.body.prompt);
  // Penalties below neutral reward repeats: the greedy text changes.
  const repeating = await client.completions.create({
    ...base, frequency_penalty: -2, presence_penalty: -2,
  });
  assert.notEqual(repeating.choices[0].text, free.choices[0].text);
  // min_tokens holds EOS back; out of range, each is vLLM's 400.
  const held = await client.completions.create({
    model, prompt, max_tokens: 12, min_tokens: 10, temperature: 0,
  });
  assert.ok(held.usage.completion_tokens >= 10, `${held.usage.completion_tokens} tokens`);
  for (const [field, value, message] of [
    ['presence_penalty', 2.5, 'presence_penalty must be in [-2, 2], got 2.5.'],
    ['min_tokens', 20, 'min_tokens must be less than or equal to max_tokens=8, got 20.'],
    ['logit_bias', { 999999: 1 }, 'token_id(s) [999999] in logit_bias contain out-of-vocab token ids.'],
  ]) {
    await assert.rejects(client.completions.create({ ...base, [field]: value }), (e) => {
      assert.ok(e instanceof OpenAI.BadRequestError, `${field}: ${e}`);
      assert.ok(e.message.includes(message), `${field}: ${e.message}`);
      return true;
    });
  }
});

test('a seed makes sampling repeatable', { skip }, async () => {
  const args = { model, prompt, max_tokens: 12, temperature: 1.0, top_p: 0.9, top_k: 50,
                 seed: 1234, ignore_eos: true };
  const a = await client.completions.create(args);
  const b = await client.completions.create(args);
  assert.equal(a.choices[0].text, b.choices[0].text);
});

test('the safetensors checkpoint serves the same greedy text as the GGUF', { skip }, async () => {
  const args = { model, prompt, max_tokens: 16, temperature: 0, ignore_eos: true };
  const fromGguf = await client.completions.create(args);
  // The tokenizer: tokenizer.json beside the checkpoint when make-model writes one, else the GGUF.
  const tokenizer = existsSync(join(dir, 'tokenizer.json'))
    ? [] : ['--tokenizer', join(dir, 'model.gguf')];
  const st = await startLlmserve(llmserve, ['--backend', 'cpu', '--model', dir, '--served-model-name', model,
                                '--max-model-len', '256', '--max-num-seqs', '4', ...tokenizer]);
  try {
    const other = new OpenAI({ baseURL: `${st.root}/v1`, apiKey: 'unused', maxRetries: 0 });
    const fromSafetensors = await other.completions.create(args);
    assert.equal(fromSafetensors.choices[0].text, fromGguf.choices[0].text);
    assert.equal(fromSafetensors.usage.prompt_tokens, fromGguf.usage.prompt_tokens);
    // tokenizer_config.json carries the same chat template as the GGUF.
    const chatArgs = { model, messages, max_tokens: 4, temperature: 0 };
    const chatSt = await other.chat.completions.create(chatArgs);
    const chatGguf = await client.chat.completions.create(chatArgs);
    assert.equal(chatSt.usage.prompt_tokens, chatGguf.usage.prompt_tokens);
    assert.equal(chatSt.choices[0].message.content, chatGguf.choices[0].message.content);
  } finally {
    await stopLlmserve(st);
  }
});

test('tokenizer route errors are in the error envelope', { skip }, async () => {
  const bad = await post('/detokenize', { model, tokens: [1, 10_000_000] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.param, 'tokens');
  const other = await post('/tokenize', { model: 'nope', prompt: 'x' });
  assert.equal(other.status, 404);
});
