// Tools and response_format with the official `openai` npm client against the sim backend: the
// SDK's own helpers (chat.completions.parse, chat.completions.stream, responses.parse) must read
// the synthetic tool calls and JSON answers as they read vLLM's: arguments and content that parse
// and fit the schema.
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
  server = await startLlmserve(binary, ['--served-model-name', 'test-model',
                                        '--step-time-scale', '0'], 15000);
  client = new OpenAI({ baseURL: `${server.root}/v1`, apiKey: 'unused', maxRetries: 0 });
});
after(async () => stopLlmserve(server));

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The forecast for a city',
    strict: true,
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        coords: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } },
                  required: ['lat', 'lon'], additionalProperties: false },
      },
      required: ['city', 'unit', 'days', 'coords'],
      additionalProperties: false,
    },
  },
};

function checkWeatherArgs(args) {
  assert.equal(typeof args.city, 'string');
  assert.ok(['celsius', 'fahrenheit'].includes(args.unit), args.unit);
  assert.ok(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7, `${args.days}`);
  assert.equal(typeof args.coords.lat, 'number');
  assert.equal(typeof args.coords.lon, 'number');
}

test('a named tool call parses with the SDK and fits the schema', async () => {
  const r = await client.chat.completions.parse({
    model: 'test-model',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [weather],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
  });
  const message = r.choices[0].message;
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.equal(message.tool_calls.length, 1);
  assert.equal(message.tool_calls[0].function.name, 'get_weather');
  checkWeatherArgs(message.tool_calls[0].function.parsed_arguments);
});

test('streamed tool-call deltas assemble into the same call', async () => {
  const request = {
    model: 'test-model',
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    tools: [weather],
    tool_choice: 'required',
    seed: 42,
  };
  const stream = client.chat.completions.stream(request);
  const streamed = await stream.finalChatCompletion();
  const plain = await client.chat.completions.create(request);
  assert.equal(streamed.choices[0].finish_reason, 'tool_calls');
  const call = streamed.choices[0].message.tool_calls[0];
  assert.equal(call.function.name, 'get_weather');
  checkWeatherArgs(JSON.parse(call.function.arguments));
  const same = plain.choices[0].message.tool_calls[0];
  assert.deepEqual([call.id, call.type, call.function.name, call.function.arguments],
                   [same.id, same.type, same.function.name, same.function.arguments]);
});

test('response_format json_schema content parses and validates', async () => {
  const r = await client.chat.completions.parse({
    model: 'test-model',
    messages: [{ role: 'user', content: 'Describe a person' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'person',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1 },
            age: { type: 'integer', minimum: 0, maximum: 120 },
            hobbies: { type: 'array', items: { type: 'string' }, maxItems: 3 },
            employed: { type: 'boolean' },
          },
          required: ['name', 'age', 'hobbies', 'employed'],
          additionalProperties: false,
        },
      },
    },
  });
  const person = r.choices[0].message.parsed;
  assert.ok(person.name.length >= 1);
  assert.ok(Number.isInteger(person.age) && person.age >= 0 && person.age <= 120);
  assert.ok(Array.isArray(person.hobbies) && person.hobbies.length <= 3);
  assert.equal(typeof person.employed, 'boolean');
});

test('responses: text.format json_schema output parses with responses.parse', async () => {
  const r = await client.responses.parse({
    model: 'test-model',
    input: 'The service status',
    text: {
      format: {
        type: 'json_schema',
        name: 'status',
        strict: true,
        schema: {
          type: 'object',
          properties: { up: { type: 'boolean' }, replicas: { type: 'integer', minimum: 1 } },
          required: ['up', 'replicas'],
          additionalProperties: false,
        },
      },
    },
  });
  assert.equal(r.status, 'completed');
  assert.equal(typeof r.output_parsed.up, 'boolean');
  assert.ok(Number.isInteger(r.output_parsed.replicas) && r.output_parsed.replicas >= 1);
});
