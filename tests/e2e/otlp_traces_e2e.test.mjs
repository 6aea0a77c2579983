// OpenTelemetry traces end to end: llmserve exports to an OTLP/HTTP receiver written here on top
// of the official OpenTelemetry JS protobuf decoders (@opentelemetry/otlp-transformer's generated
// ExportTraceServiceRequest, pinned in package-lock.json), and the caller is the official
// @opentelemetry/sdk-trace-node client, whose traceparent our llm_request span must continue.
// Checks: parentage and tracestate, every attribute's name and type, the response's traceparent
// header, no prompt or completion text without --otlp-traces-include-content (and text with it),
// http/json with gzip and OTEL_EXPORTER_OTLP_HEADERS, the detailed child spans, and that a dead or
// a slow collector leaves request latency unchanged while the lost spans are counted on /metrics.
// Run: LLMSERVE=path/to/llmserve node --test tests/e2e/
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { startLlmserve, stopLlmserve } from './llmserve_process.mjs';

const binary = process.env.LLMSERVE;
if (!binary) throw new Error('set LLMSERVE to the llmserve binary');

const ExportTraceServiceRequest =
  otlpRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const PROMPT = 'Tell me the secret plan zebra-4471';

// ---- the receiver ----

// Decodes one OTLP/HTTP body (protobuf or JSON, gzip or not) into plain spans:
// { traceId, spanId, parentSpanId, traceState, name, kind, attributes: {key: {type, value}}, ...}.
function decodeBody(body, headers) {
  const raw = headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(body) : body;
  let request;
  if (headers['content-type'] === 'application/json') {
    request = ExportTraceServiceRequest.fromObject(jsonToProtoShape(JSON.parse(raw.toString())));
  } else {
    assert.equal(headers['content-type'], 'application/x-protobuf');
    request = ExportTraceServiceRequest.decode(raw);
  }
  const obj = ExportTraceServiceRequest.toObject(request, { longs: String, bytes: Buffer,
                                                           oneofs: true, defaults: false });
  const spans = [];
  for (const rs of obj.resourceSpans) {
    const resource = attributeMap(rs.resource.attributes);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans ?? []) {
        spans.push({
          resource, scope: ss.scope?.name,
          traceId: Buffer.from(s.traceId).toString('hex'),
          spanId: Buffer.from(s.spanId).toString('hex'),
          parentSpanId: s.parentSpanId ? Buffer.from(s.parentSpanId).toString('hex') : '',
          traceState: s.traceState ?? '', name: s.name, kind: s.kind, flags: s.flags ?? 0,
          start: BigInt(s.startTimeUnixNano), end: BigInt(s.endTimeUnixNano),
          attributes: attributeMap(s.attributes ?? []),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributeMap(e.attributes ?? []) })),
          status: s.status ?? {},
        });
      }
    }
  }
  return { raw, spans };
}

// OTLP/JSON -> the shape protobufjs' fromObject reads: hex ids become bytes (OTLP's JSON rule),
// the rest maps as proto3 JSON (int64 strings are accepted as they are).
function jsonToProtoShape(j) {
  for (const rs of j.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        for (const k of ['traceId', 'spanId', 'parentSpanId']) {
          if (s[k] !== undefined) {
            assert.match(s[k], /^[0-9a-f]+$/, `${k} is lowercase hex in OTLP/JSON`);
            s[k] = Buffer.from(s[k], 'hex');
          }
        }
      }
    }
  }
  return j;
}

function attributeMap(list) {
  const out = {};
  for (const kv of list) {
    const type = kv.value.value;  // the oneof's field name
    let value = kv.value[type];
    if (type === 'arrayValue') value = value.values.map((v) => v[v.value]);
    out[kv.key] = { type, value };
  }
  return out;
}

// mode: 'ok' or { delayMs } (answers each export after a delay).
async function startReceiver(mode = 'ok') {
  const received = { exports: [], spans: [], headers: [] };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      assert.equal(req.method, 'POST');
      received.paths = [...(received.paths ?? []), req.url];
      try {
        const decoded = decodeBody(body, req.headers);
        received.exports.push(decoded);
        received.spans.push(...decoded.spans);
        received.headers.push(req.headers);
      } catch (e) {
        received.error = e;
      }
      const answer = () => {
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
        res.end();
      };
      if (mode === 'ok') answer(); else setTimeout(answer, mode.delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return { server, received, url: `http://127.0.0.1:${port}`,
           close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); } };
}

async function freeClosedPort() {
  const s = http.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return port;
}

async function waitFor(what, pred, timeoutMs = 10000) {
  const start = Date.now();
  while (!(await pred())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---- llmserve ----

const servers = [];
after(async () => { for (const s of servers) await stopLlmserve(s); });

// Starts llmserve with `env` added to its environment (the OTEL_* variables).
async function startServer(args, env = {}) {
  const saved = {};
  for (const [k, v] of Object.entries(env)) { saved[k] = process.env[k]; process.env[k] = v; }
  try {
    const server = await startLlmserve(binary, ['--model', 'Llama-3.2-1B', '--served-model-name',
                                                'test-model', ...args], 15000);
    servers.push(server);
    return server;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
}

async function chat(server, headers = {}, body = {}) {
  const r = await fetch(`${server.root}/v1/chat/completions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: PROMPT }],
                           max_tokens: 8, ignore_eos: true, temperature: 0.5, top_p: 0.75, ...body }),
  });
  assert.equal(r.status, 200);
  return { response: r, json: await r.json() };
}

async function droppedSpans(server) {
  const text = await (await fetch(`${server.root}/metrics`)).text();
  const m = text.match(/^llmserve:otlp_spans_dropped_total (\S+)$/m);
  return m ? Number(m[1]) : NaN;
}

// ---- the official client ----

const clientExporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(clientExporter)] });
provider.register({ propagator: new W3CTraceContextPropagator() });
const clientTracer = trace.getTracer('llmserve-e2e-client');

// One request inside an active client span; the SDK's propagator writes traceparent/tracestate.
async function chatInClientSpan(server, traceState) {
  return clientTracer.startActiveSpan('client-call', { kind: 2 }, async (span) => {
    const headers = {};
    let ctx = context.active();
    if (traceState) {
      const { createTraceState } = await import('@opentelemetry/api');
      ctx = trace.setSpan(ctx, trace.wrapSpanContext({ ...span.spanContext(),
                                                       traceState: createTraceState(traceState) }));
    }
    propagation.inject(ctx, headers);
    const result = await chat(server, headers);
    span.end();
    return { ...result, clientSpan: span.spanContext(), sentHeaders: headers };
  });
}

const EXPECTED_TYPES = {
  'gen_ai.operation.name': 'stringValue', 'gen_ai.provider.name': 'stringValue',
  'gen_ai.request.model': 'stringValue', 'gen_ai.response.model': 'stringValue',
  'gen_ai.request.id': 'stringValue', 'gen_ai.request.max_tokens': 'intValue',
  'gen_ai.request.temperature': 'doubleValue', 'gen_ai.request.top_p': 'doubleValue',
  'gen_ai.request.n': 'intValue', 'gen_ai.usage.num_sequences': 'intValue',
  'gen_ai.usage.input_tokens': 'intValue', 'gen_ai.usage.output_tokens': 'intValue',
  'gen_ai.usage.prompt_tokens': 'intValue', 'gen_ai.usage.completion_tokens': 'intValue',
  'gen_ai.usage.cached_tokens': 'intValue', 'gen_ai.response.finish_reasons': 'arrayValue',
  'gen_ai.latency.time_in_queue': 'doubleValue', 'gen_ai.latency.time_to_first_token': 'doubleValue',
  'gen_ai.latency.time_in_model_prefill': 'doubleValue',
  'gen_ai.latency.time_in_model_decode': 'doubleValue',
  'gen_ai.latency.time_in_model_inference': 'doubleValue', 'gen_ai.latency.e2e': 'doubleValue',
  'llmserve.num_preemptions': 'intValue',
};

test('protobuf: the llm_request span continues the sdk-trace-node client trace, with every attribute typed and no text', async () => {
  const receiver = await startReceiver();
  const server = await startServer(['--otlp-traces-endpoint', receiver.url,
                                    '--enable-request-id-headers', '--enable-per-request-metrics'],
                                   { OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'llmserve-e2e' });
  try {
    const { response, json, clientSpan, sentHeaders } =
      await chatInClientSpan(server, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    assert.match(sentHeaders.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await waitFor('the span', () => receiver.received.spans.length >= 1);
    assert.equal(receiver.received.error, undefined);
    assert.deepEqual(receiver.received.paths, ['/v1/traces']);
    const [s] = receiver.received.spans;
    assert.equal(s.name, 'llm_request');
    assert.equal(s.kind, 2, 'SPAN_KIND_SERVER');
    assert.equal(s.traceId, clientSpan.traceId);
    assert.equal(s.parentSpanId, clientSpan.spanId);
    assert.notEqual(s.spanId, clientSpan.spanId);
    assert.equal(s.traceState, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    assert.equal(s.resource['service.name'].value, 'llmserve-e2e');
    assert.equal(s.scope, 'llmserve');
    assert.ok(s.end > s.start);
    // The response names our span, so a client can find its trace.
    assert.equal(response.headers.get('traceparent'), `00-${s.traceId}-${s.spanId}-01`);

    assert.deepEqual(Object.keys(s.attributes).sort(), Object.keys(EXPECTED_TYPES).sort());
    for (const [key, type] of Object.entries(EXPECTED_TYPES)) {
      assert.equal(s.attributes[key].type, type, key);
    }
    const a = (k) => s.attributes[k].value;
    assert.equal(a('gen_ai.operation.name'), 'chat');
    assert.equal(a('gen_ai.request.model'), 'test-model');
    assert.equal(a('gen_ai.response.model'), 'test-model');
    assert.equal(a('gen_ai.request.id'), json.id);
    assert.equal(a('gen_ai.request.max_tokens'), '8');
    assert.equal(a('gen_ai.request.temperature'), 0.5);
    assert.equal(a('gen_ai.request.top_p'), 0.75);
    assert.equal(a('gen_ai.usage.input_tokens'), String(json.usage.prompt_tokens));
    assert.equal(a('gen_ai.usage.output_tokens'), String(json.usage.completion_tokens));
    assert.deepEqual(a('gen_ai.response.finish_reasons'), ['length']);
    // The same definitions as the per-request metrics object (docs/metrics.md).
    assert.ok(Math.abs(a('gen_ai.latency.time_in_model_prefill') * 1000 -
                       json.metrics.time_to_first_token_ms) < 0.01);
    assert.ok(Math.abs(a('gen_ai.latency.time_in_queue') * 1000 - json.metrics.queue_time_ms) < 0.01);
    assert.ok(a('gen_ai.latency.time_to_first_token') >= a('gen_ai.latency.time_in_model_prefill'));
    assert.ok(a('gen_ai.latency.e2e') >= a('gen_ai.latency.time_to_first_token'));

    // No text without the opt-in flag: neither the prompt nor the answer, anywhere in the body.
    assert.deepEqual(s.events, []);
    const answer = json.choices[0].message.content;
    for (const e of receiver.received.exports) {
      assert.ok(!e.raw.includes(Buffer.from('zebra-4471')), 'prompt text exported');
      if (answer.length >= 6) assert.ok(!e.raw.includes(Buffer.from(answer)), 'answer exported');
    }

    // Without a traceparent: a new trace, a root span.
    await chat(server);
    await waitFor('the second span', () => receiver.received.spans.length >= 2);
    const root = receiver.received.spans[1];
    assert.equal(root.parentSpanId, '');
    assert.notEqual(root.traceId, s.traceId);
    assert.equal(root.traceState, '');
    // A caller that did not sample: nothing exported (parent-based sampling).
    await chat(server, { traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-00` });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.spans.length, 2);
    assert.equal(await droppedSpans(server), 0);
  } finally {
    await stopLlmserve(server);
    await receiver.close();
  }
});

test('http/json with gzip and headers: text only with --otlp-traces-include-content, detailed child spans', async () => {
  const receiver = await startReceiver();
  const server = await startServer(['--otlp-traces-endpoint', `${receiver.url}/v1/traces`,
                                    '--otlp-traces-include-content',
                                    '--collect-detailed-traces', 'all'],
                                   { OTEL_BSP_SCHEDULE_DELAY: '50',
                                     OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
                                     OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
                                     OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=secret%20one,x-team=llm' });
  try {
    const { json } = await chat(server);
    await waitFor('the spans', () => receiver.received.spans.some((s) => s.name === 'llm_request'));
    assert.equal(receiver.received.error, undefined);
    const h = receiver.received.headers[0];
    assert.equal(h['content-type'], 'application/json');
    assert.equal(h['content-encoding'], 'gzip');
    assert.equal(h['x-api-key'], 'secret one');
    assert.equal(h['x-team'], 'llm');
    // The children are exported in the same batch as their parent.
    const spans = receiver.received.spans;
    const s = spans.find((x) => x.name === 'llm_request');
    const events = Object.fromEntries(s.events.map((e) => [e.name, e.attributes]));
    assert.match(events['gen_ai.content.prompt']['gen_ai.prompt'].value, /zebra-4471/);
    assert.equal(events['gen_ai.content.completion']['gen_ai.completion'].value,
                 json.choices[0].message.content);
    const queued = spans.find((x) => x.name === 'queued');
    assert.ok(queued, 'a queued child span');
    assert.equal(queued.parentSpanId, s.spanId);
    assert.equal(queued.traceId, s.traceId);
    assert.equal(queued.kind, 1, 'SPAN_KIND_INTERNAL');
    assert.ok(queued.start >= s.start && queued.end <= s.end);
    const chunks = spans.filter((x) => x.name === 'prefill_chunk');
    assert.ok(chunks.length >= 1, 'a prefill_chunk child span');
    assert.equal(chunks.reduce((n, c) => n + Number(c.attributes['llmserve.prefill.tokens'].value), 0),
                 json.usage.prompt_tokens);
  } finally {
    await stopLlmserve(server);
    await receiver.close();
  }
});

// Median latency of `n` sequential requests.
async function medianLatencyMs(server, n) {
  const times = [];
  for (let i = 0; i < n; ++i) {
    const t0 = performance.now();
    await chat(server);
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(n / 2)];
}

test('a dead or slow collector leaves request latency unchanged and counts the dropped spans', async () => {
  const n = 15;
  const args = ['--step-time-scale', '0.2'];
  const slowReceiver = await startReceiver({ delayMs: 3000 });
  const deadPort = await freeClosedPort();
  const base = await startServer(args);
  const dead = await startServer([...args, '--otlp-traces-endpoint', `http://127.0.0.1:${deadPort}`],
                                 { OTEL_BSP_SCHEDULE_DELAY: '20' });
  // Exports time out after 300 ms, and the queue holds 4 spans: the rest are dropped.
  const slow = await startServer([...args, '--otlp-traces-endpoint', slowReceiver.url],
                                 { OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_BSP_EXPORT_TIMEOUT: '300',
                                   OTEL_BSP_MAX_QUEUE_SIZE: '4', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2' });
  try {
    // Interleaved rounds, so that the machine's load hits all three alike.
    const medians = { base: [], dead: [], slow: [] };
    for (let round = 0; round < 3; ++round) {
      medians.base.push(await medianLatencyMs(base, n));
      medians.dead.push(await medianLatencyMs(dead, n));
      medians.slow.push(await medianLatencyMs(slow, n));
    }
    const med = (xs) => [...xs].sort((x, y) => x - y)[1];
    const b = med(medians.base), d = med(medians.dead), s = med(medians.slow);
    console.log(`median latency ms: no tracing ${b.toFixed(1)}, dead collector ${d.toFixed(1)}, ` +
                `slow collector ${s.toFixed(1)}`);
    // A blocking export would add the collector's 3 s (or its 300 ms timeout) to each request.
    assert.ok(d < b * 1.5 + 15, `dead collector: ${d} ms vs ${b} ms`);
    assert.ok(s < b * 1.5 + 15, `slow collector: ${s} ms vs ${b} ms`);
    await waitFor('dead collector drops', async () => (await droppedSpans(dead)) === 3 * n);
    await waitFor('slow collector drops', async () => (await droppedSpans(slow)) > 0);
    assert.ok(await droppedSpans(slow) <= 3 * n);
    assert.ok(Number.isNaN(await droppedSpans(base)), 'no exporter metric without tracing');
  } finally {
    await stopLlmserve(dead);
    await stopLlmserve(slow);
    await stopLlmserve(base);
    await slowReceiver.close();
  }
});

test('bad tracing configuration exits 2 with a message naming it', async () => {
  const { spawnSync } = await import('node:child_process');
  const cases = [
    [['--otlp-traces-endpoint', 'https://collector:4318'], {}, /https is not supported/],
    [['--otlp-traces-endpoint', 'collector:4318'], {}, /--otlp-traces-endpoint: expected an http/],
    [['--collect-detailed-traces', 'all'], {}, /--collect-detailed-traces: needs tracing on/],
    [['--collect-detailed-traces', 'gpu'], {}, /--collect-detailed-traces/],
    [['--otlp-traces-endpoint', 'http://127.0.0.1:4318'], { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
     /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' is not supported/],
    [['--otlp-traces-endpoint', 'http://127.0.0.1:4318'], { OTEL_EXPORTER_OTLP_HEADERS: 'novalue' },
     /OTEL_EXPORTER_OTLP_HEADERS: expected key=value/],
  ];
  for (const [args, env, message] of cases) {
    const r = spawnSync(binary, ['--port', '0', ...args], { env: { ...process.env, ...env },
                                                            encoding: 'utf8', timeout: 15000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test('llmsim replay --otlp-out: every line decodes with the official OTLP decoders', async (t) => {
  const llmsim = process.env.LLMSIM;
  if (!llmsim) return t.skip('set LLMSIM to the llmsim binary');
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'otlp-out-'));
  try {
    const file = join(dir, 'spans.jsonl');
    const trace = new URL('../../traces/tiny.json', import.meta.url).pathname;
    const r = spawnSync(llmsim, ['replay', trace, '--quiet', '--no-progress', '--otlp-out', file,
                                 '--collect-detailed-traces', 'all'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const spans = lines.flatMap((line) => decodeBody(Buffer.from(line),
                                                     { 'content-type': 'application/json' }).spans);
    const requests = spans.filter((s) => s.name === 'llm_request');
    assert.equal(requests.length, 10);
    for (const s of requests) {
      assert.equal(s.resource['service.name'].value, 'llmsim');
      for (const [key, type] of Object.entries(EXPECTED_TYPES)) {
        if (key === 'gen_ai.request.max_tokens') continue;  // trace requests set none
        assert.equal(s.attributes[key]?.type, type, key);
      }
    }
    const ids = new Set(requests.map((s) => s.spanId));
    for (const c of spans.filter((s) => s.name !== 'llm_request')) assert.ok(ids.has(c.parentSpanId));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
