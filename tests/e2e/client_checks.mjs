// The client checks run against every backend (clients_e2e.test.mjs: sim; openai_cpu_e2e.test.mjs:
// cpu): the official `openai` client's Responses API, the Vercel AI SDK (`ai` + `@ai-sdk/openai`:
// the default provider, which calls /v1/responses, `.chat()` and `.completion()`, generateText and
// streamText) and LangChain JS (`@langchain/openai`: ChatOpenAI invoke / stream / batch with usage
// metadata, and the OpenAI completions class). Greedy sampling (temperature 0), so a stream's text
// must equal the non-streaming text of the same request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { generateText, streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI, OpenAI as LangChainOpenAI } from '@langchain/openai';

const maxTokens = 5;

// `target()` gives { baseURL (…/v1), model } once the suite's server runs; `skip` as node:test's.
export function registerClientTests(target, skip = false) {
  const options = { skip };

  test('openai client: responses.create, non-streaming and streaming', options, async () => {
    const { baseURL, model } = target();
    const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
    const r = await client.responses.create({
      model, input: 'Say something.', instructions: 'Be brief.', max_output_tokens: maxTokens,
      temperature: 0,
    });
    assert.equal(r.object, 'response');
    assert.match(r.id, /^resp_/);
    assert.equal(r.output[0].type, 'message');
    assert.ok(r.output_text.length > 0, 'the SDK joins the output text');
    assert.equal(r.usage.output_tokens, maxTokens);
    assert.equal(r.usage.total_tokens, r.usage.input_tokens + maxTokens);
    assert.equal(r.status, 'incomplete');
    assert.equal(r.incomplete_details.reason, 'max_output_tokens');

    const stream = client.responses.stream({
      model, input: 'Say something.', instructions: 'Be brief.', max_output_tokens: maxTokens,
      temperature: 0,
    });
    const types = [];
    let deltas = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
    }
    const final = await stream.finalResponse();
    assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress',
                                         'response.output_item.added',
                                         'response.content_part.added']);
    assert.equal(types[types.length - 1], 'response.incomplete');
    assert.equal(deltas, r.output_text);
    assert.equal(final.output_text, r.output_text);

    await assert.rejects(
      client.responses.create({ model, input: 'x', tools: [{ type: 'web_search' }] }),
      (e) => e instanceof OpenAI.BadRequestError && /tools/.test(e.message));
  });

  test('Vercel AI SDK: the default provider (Responses API), .chat() and .completion()', options,
       async () => {
    const { baseURL, model } = target();
    const provider = createOpenAI({ baseURL, apiKey: 'unused' });
    const models = { responses: provider(model), chat: provider.chat(model),
                     completion: provider.completion(model) };
    for (const [kind, m] of Object.entries(models)) {
      const args = { model: m, prompt: 'Tell me a story.', maxOutputTokens: maxTokens,
                     temperature: 0, maxRetries: 0 };
      const g = await generateText(args);
      assert.ok(g.text.length > 0, `${kind}: text`);
      assert.equal(g.finishReason, 'length', kind);
      assert.equal(g.usage.outputTokens, maxTokens, kind);
      assert.ok(g.usage.inputTokens > 0, kind);
      const ids = { responses: /^resp_/, chat: /^chatcmpl-/, completion: /^cmpl-/ };
      assert.match(g.response.id, ids[kind], `${kind}: the route it took`);
      const s = streamText(args);
      let streamed = '';
      for await (const part of s.textStream) streamed += part;
      assert.equal(streamed, g.text, `${kind}: streamed text`);
      assert.equal(await s.finishReason, 'length', kind);
      assert.equal((await s.usage).outputTokens, maxTokens, kind);
    }
  });

  test('LangChain JS: ChatOpenAI invoke, stream and batch with usage; OpenAI completions', options,
       async () => {
    const { baseURL, model } = target();
    const chat = new ChatOpenAI({ model, apiKey: 'unused', configuration: { baseURL },
                                  maxTokens, temperature: 0, maxRetries: 0 });
    const invoked = await chat.invoke('Tell me a story.');
    assert.ok(typeof invoked.content === 'string' && invoked.content.length > 0);
    assert.equal(invoked.usage_metadata.output_tokens, maxTokens);
    assert.equal(invoked.usage_metadata.total_tokens,
                 invoked.usage_metadata.input_tokens + maxTokens);
    let streamed = '';
    let usage;
    for await (const chunk of await chat.stream('Tell me a story.')) {
      streamed += chunk.content;
      if (chunk.usage_metadata) usage = chunk.usage_metadata;
    }
    assert.equal(streamed, invoked.content);
    assert.equal(usage?.output_tokens, maxTokens);
    const batch = await chat.batch(['One.', 'Two.']);
    assert.equal(batch.length, 2);
    for (const b of batch) assert.equal(b.usage_metadata.output_tokens, maxTokens);

    const completions = new LangChainOpenAI({ model, apiKey: 'unused', configuration: { baseURL },
                                              maxTokens, temperature: 0, maxRetries: 0 });
    const text = await completions.invoke('Once upon a time');
    assert.ok(typeof text === 'string' && text.length > 0);
  });
}
