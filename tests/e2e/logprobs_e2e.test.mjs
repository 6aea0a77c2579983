// End-to-end test of log-probabilities with the official `openai` npm client, against llmserve with
// the sim backend and with the cpu backend (a tiny random Llama from `llmsim make-model`):
// completions `logprobs` and `echo` (scoring a text with max_tokens 0, as evaluation harnesses
// do), chat `logprobs` with `top_logprobs`, streaming and not, and the 400 past the cap.
// Run: LLMSERVE=path/to/llmserve LLMSIM=path/to/llmsim node --test tests/e2e/
// (the cpu part is skipped without LLMSIM or the vocabulary; LLM_TOKENIZERS overrides its folder.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const llmserve = process.env.LLMSERVE;
const llmsim = process.env.LLMSIM;
if (!llmserve) throw new Error('set LLMSERVE to the llmserve binary');
const here = dirname(fileURLToPath(import.meta.url));
const vocabDir = process.env.LLM_TOKENIZERS ?? join(here, '../../../shared/testdata/tokenizers');
const vocab = join(vocabDir, 'ggml-vocab-llama-bpe.gguf');
const skipCpu = !llmsim ? 'set LLMSIM to run the cpu part'
  : !existsSync(vocab) ? `no vocabulary at ${vocab}` : false;

let sim;
let cpu;
let dir;
before(async () => {
  sim = await startLlmserve(llmserve, ['--model', 'Llama-3.2-1B', '--served-model-name', 'sim-model',
                           '--step-time-scale', '0']);
  sim.client = new OpenAI({ baseURL: `${sim.root}/v1`, apiKey: 'unused', maxRetries: 0 });
  if (skipCpu) return;
  dir = mkdtempSync(join(tmpdir(), 'llmserve-logprobs-e2e-'));
  execFileSync(llmsim, ['make-model', '--arch', 'llama', '--vocab', vocab, '--dim', '64',
                        '--layers', '2', '--heads', '4', '--kv-heads', '2', '--seed', '1',
                        '--out', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  cpu = await startLlmserve(llmserve, ['--backend', 'cpu', '--model', join(dir, 'model.gguf'),
                           '--served-model-name', 'cpu-model', '--max-model-len', '256']);
  cpu.client = new OpenAI({ baseURL: `${cpu.root}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await stopLlmserve(sim);
  await stopLlmserve(cpu);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// OpenAI's legacy completions shape: four lists of one length, offsets that add up.
function checkCompletionLogprobs(lp, k, firstScored = 0) {
  assert.equal(lp.token_logprobs.length, lp.tokens.length);
  assert.equal(lp.top_logprobs.length, lp.tokens.length);
  assert.equal(lp.text_offset.length, lp.tokens.length);
  for (let i = 0; i < lp.tokens.length; i++) {
    if (i > 0) assert.equal(lp.text_offset[i], lp.text_offset[i - 1] + [...lp.tokens[i - 1]].length);
    if (i < firstScored) {
      assert.equal(lp.token_logprobs[i], null);
      assert.equal(lp.top_logprobs[i], null);
      continue;
    }
    assert.ok(lp.token_logprobs[i] <= 0);
    const top = Object.entries(lp.top_logprobs[i]);
    assert.ok(top.length >= 1 && top.length <= k + 1, JSON.stringify(lp.top_logprobs[i]));
    for (const [, v] of top) assert.ok(v <= 0);
  }
}

function checkChatLogprobs(content, k) {
  for (const e of content) {
    assert.equal(typeof e.token, 'string');
    assert.ok(e.logprob <= 0);
    assert.deepEqual(e.bytes, [...Buffer.from(e.token, 'utf8')]);
    assert.equal(e.top_logprobs.length, k);
    for (const t of e.top_logprobs) {
      assert.ok(t.logprob <= 0);
      assert.deepEqual(t.bytes, [...Buffer.from(t.token, 'utf8')]);
    }
  }
}

for (const backend of ['sim', 'cpu']) {
  const skip = backend === 'cpu' ? skipCpu : false;
  const server = () => (backend === 'sim' ? sim : cpu);
  const model = `${backend}-model`;

  test(`${backend}: completions logprobs, streaming and not`, { skip }, async () => {
    const { client } = server();
    const params = { model, prompt: 'The capital of France is', max_tokens: 5, logprobs: 3,
                     temperature: 0, ignore_eos: true };
    const r = await client.completions.create(params);
    const lp = r.choices[0].logprobs;
    assert.equal(lp.tokens.length, 5);
    checkCompletionLogprobs(lp, 3);
    assert.equal(lp.tokens.join(''), r.choices[0].text);
    let tokens = [];
    let text = '';
    for await (const chunk of await client.completions.create({ ...params, stream: true })) {
      const c = chunk.choices[0];
      text += c.text;
      if (c.logprobs) tokens = tokens.concat(c.logprobs.tokens);
    }
    assert.equal(text, r.choices[0].text);
    assert.deepEqual(tokens, lp.tokens);
  });

  test(`${backend}: echo with max_tokens 0 scores the prompt`, { skip }, async () => {
    const { client } = server();
    const prompt = 'The quick brown fox jumps over the lazy dog';
    const r = await client.completions.create({ model, prompt, max_tokens: 0, echo: true,
                                                logprobs: 1 });
    const c = r.choices[0];
    assert.equal(c.text, prompt);
    assert.equal(c.logprobs.tokens.length, r.usage.prompt_tokens);
    checkCompletionLogprobs(c.logprobs, 1, 1);
    const total = c.logprobs.token_logprobs.slice(1).reduce((a, b) => a + b, 0);
    assert.ok(Number.isFinite(total) && total < 0);
  });

  test(`${backend}: chat logprobs with top_logprobs`, { skip }, async () => {
    const { client } = server();
    const params = { model, messages: [{ role: 'user', content: 'Say something.' }],
                     max_tokens: 4, temperature: 0, logprobs: true, top_logprobs: 2,
                     ignore_eos: true };
    const r = await client.chat.completions.create(params);
    const content = r.choices[0].logprobs.content;
    assert.equal(content.length, r.usage.completion_tokens);
    checkChatLogprobs(content, 2);
    // vLLM lists the chosen token first; greedy sampling (cpu) makes it the most likely one.
    for (const e of content) {
      assert.equal(e.top_logprobs[0].token, e.token);
      assert.equal(e.top_logprobs[0].logprob, e.logprob);
      if (backend === 'cpu') assert.ok(e.top_logprobs[1].logprob <= e.logprob);
    }
    let streamed = [];
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
      const lp = chunk.choices[0]?.logprobs;
      if (lp) streamed = streamed.concat(lp.content);
    }
    assert.deepEqual(streamed.map((e) => e.token), content.map((e) => e.token));
  });

  test(`${backend}: more than 20 top logprobs is a 400`, { skip }, async () => {
    const { client } = server();
    await assert.rejects(
      client.completions.create({ model, prompt: 'a', max_tokens: 1, logprobs: 21 }),
      (e) => e.status === 400 && /greater than max allowed: 20/.test(e.message));
  });
}
