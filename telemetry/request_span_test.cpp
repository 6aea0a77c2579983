#include "telemetry/request_span.h"

#include <gtest/gtest.h>

#include <map>

namespace llm {
namespace {

constexpr Nanos kMs = 1'000'000;

RequestSpanInput sample_input() {
  RequestSpanInput in;
  in.request_id = "chatcmpl-1";
  in.request_model = "m";
  in.response_model = "m";
  in.max_tokens = 16;
  in.temperature = 0.5;
  in.top_p = 0.9;
  in.prompt_tokens = 12;
  in.completion_tokens = 5;
  in.cached_tokens = 4;
  in.finish_reasons = {"length"};
  in.timeline.arrival = 1000 * kMs;
  in.timeline.queued = 1001 * kMs;
  in.timeline.scheduled = 1011 * kMs;
  in.timeline.first_token = 1031 * kMs;
  in.timeline.last_token = 1071 * kMs;
  in.timeline.finished = 1072 * kMs;
  in.timeline.num_preemptions = 1;
  return in;
}

const Attribute* find(const Span& s, const std::string& key) {
  for (const Attribute& a : s.attributes) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

TEST(RequestSpan, CarriesVllmAndGenAiAttributesWithTheirTypes) {
  SpanIdSource ids(1);
  RequestSpanInput in = sample_input();
  in.identity = start_span_identity(std::nullopt, "", ids);
  std::vector<Span> spans;
  build_request_spans(in, 5'000'000'000, nullptr, ids, spans);
  ASSERT_EQ(spans.size(), 1u);
  const Span& s = spans[0];
  EXPECT_EQ(s.name, "llm_request");
  EXPECT_EQ(s.kind, SpanKind::kServer);
  EXPECT_EQ(s.start_unix_ns, 5'000'000'000u + 1000 * kMs);
  EXPECT_EQ(s.end_unix_ns, 5'000'000'000u + 1072 * kMs);
  EXPECT_EQ(s.status, SpanStatusCode::kUnset);
  EXPECT_TRUE(s.events.empty());
  enum Type { kString, kBool, kInt, kDouble, kStrings };
  const std::map<std::string, std::pair<Type, AttributeValue>> want = {
      {"gen_ai.operation.name", {kString, std::string("chat")}},
      {"gen_ai.provider.name", {kString, std::string("llmserve")}},
      {"gen_ai.request.model", {kString, std::string("m")}},
      {"gen_ai.response.model", {kString, std::string("m")}},
      {"gen_ai.request.id", {kString, std::string("chatcmpl-1")}},
      {"gen_ai.request.max_tokens", {kInt, int64_t{16}}},
      {"gen_ai.request.temperature", {kDouble, 0.5}},
      {"gen_ai.request.top_p", {kDouble, 0.9}},
      {"gen_ai.request.n", {kInt, int64_t{1}}},
      {"gen_ai.usage.num_sequences", {kInt, int64_t{1}}},
      {"gen_ai.usage.input_tokens", {kInt, int64_t{12}}},
      {"gen_ai.usage.output_tokens", {kInt, int64_t{5}}},
      {"gen_ai.usage.prompt_tokens", {kInt, int64_t{12}}},
      {"gen_ai.usage.completion_tokens", {kInt, int64_t{5}}},
      {"gen_ai.usage.cached_tokens", {kInt, int64_t{4}}},
      {"gen_ai.response.finish_reasons", {kStrings, std::vector<std::string>{"length"}}},
      {"gen_ai.latency.time_in_queue", {kDouble, 0.010}},
      {"gen_ai.latency.time_to_first_token", {kDouble, 0.031}},
      {"gen_ai.latency.time_in_model_prefill", {kDouble, 0.020}},
      {"gen_ai.latency.time_in_model_decode", {kDouble, 0.040}},
      {"gen_ai.latency.time_in_model_inference", {kDouble, 0.060}},
      {"gen_ai.latency.e2e", {kDouble, 0.072}},
      {"llmserve.num_preemptions", {kInt, int64_t{1}}},
  };
  EXPECT_EQ(s.attributes.size(), want.size());
  for (const auto& [key, expected] : want) {
    const Attribute* a = find(s, key);
    ASSERT_NE(a, nullptr) << key;
    EXPECT_EQ(static_cast<int>(a->value.index()), static_cast<int>(expected.first)) << key;
    if (expected.first == kDouble) {
      EXPECT_NEAR(std::get<double>(a->value), std::get<double>(expected.second), 1e-12) << key;
    } else {
      EXPECT_EQ(a->value, expected.second) << key;
    }
  }
}

TEST(RequestSpan, ContinuesTheCallersTrace) {
  SpanIdSource ids(2);
  const auto parent = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  RequestSpanInput in = sample_input();
  in.identity = start_span_identity(parent, "congo=t61rcWkgMzE", ids);
  std::vector<Span> spans;
  build_request_spans(in, 0, nullptr, ids, spans);
  const Span& s = spans.at(0);
  EXPECT_EQ(to_hex(s.trace_id), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(to_hex(s.parent_span_id), "b7ad6b7169203331");
  EXPECT_NE(to_hex(s.span_id), "b7ad6b7169203331");
  EXPECT_EQ(s.trace_state, "congo=t61rcWkgMzE");
  EXPECT_TRUE(s.parent_is_remote);
}

TEST(RequestSpan, NewTraceWhenThereIsNoParent) {
  SpanIdSource ids(3);
  const SpanIdentity a = start_span_identity(std::nullopt, "ignored", ids);
  const SpanIdentity b = start_span_identity(std::nullopt, "", ids);
  EXPECT_NE(a.trace_id, b.trace_id);
  EXPECT_TRUE(is_zero(a.parent_span_id));
  EXPECT_EQ(a.trace_state, "");
  EXPECT_FALSE(is_zero(a.trace_id));
}

TEST(RequestSpan, StatusIsErrorOnErrorsAndAborts) {
  SpanIdSource ids(4);
  std::vector<Span> spans;
  RequestSpanInput in = sample_input();
  in.error = true;
  in.error_message = "The engine could not complete the request.";
  build_request_spans(in, 0, nullptr, ids, spans);
  in.error = false;
  in.aborted = true;
  build_request_spans(in, 0, nullptr, ids, spans);
  EXPECT_EQ(spans[0].status, SpanStatusCode::kError);
  EXPECT_EQ(spans[0].status_message, "The engine could not complete the request.");
  EXPECT_EQ(spans[1].status, SpanStatusCode::kError);
  EXPECT_EQ(spans[1].status_message, "aborted");
}

TEST(RequestSpan, TextOnlyAsOptInEvents) {
  SpanIdSource ids(5);
  std::vector<Span> spans;
  RequestSpanInput in = sample_input();
  build_request_spans(in, 0, nullptr, ids, spans);
  EXPECT_TRUE(spans[0].events.empty());
  const std::vector<std::string> prompts{"the prompt"}, completions{"the answer"};
  in.prompts = &prompts;
  in.completions = &completions;
  build_request_spans(in, 0, nullptr, ids, spans);
  ASSERT_EQ(spans[1].events.size(), 2u);
  EXPECT_EQ(spans[1].events[0].name, "gen_ai.content.prompt");
  EXPECT_EQ(spans[1].events[0].attributes.at(0).value, AttributeValue(std::string("the prompt")));
  EXPECT_EQ(spans[1].events[1].name, "gen_ai.content.completion");
  EXPECT_EQ(spans[1].events[1].time_unix_ns, spans[1].end_unix_ns);
}

TEST(RequestSpan, UndefinedLatenciesAreLeftOut) {
  SpanIdSource ids(6);
  RequestSpanInput in = sample_input();
  in.timeline.scheduled = in.timeline.first_token = in.timeline.last_token = kNoTime;
  in.completion_tokens = 0;
  in.aborted = true;
  std::vector<Span> spans;
  build_request_spans(in, 0, nullptr, ids, spans);
  EXPECT_EQ(find(spans[0], "gen_ai.latency.time_to_first_token"), nullptr);
  EXPECT_EQ(find(spans[0], "gen_ai.latency.time_in_queue"), nullptr);
  EXPECT_NE(find(spans[0], "gen_ai.latency.e2e"), nullptr);
}

TEST(RequestSpan, DetailedChildrenAreTimedByTheEngineClock) {
  SpanIdSource ids(7);
  RequestSpanInput in = sample_input();
  in.identity = start_span_identity(std::nullopt, "", ids);
  EngineTraceEvents ev;
  ev.prefill_chunks = {{1011 * kMs, 1021 * kMs, 8}, {1021 * kMs, 1031 * kMs, 4}};
  ev.preemptions = {{1041 * kMs, 1051 * kMs}};
  std::vector<Span> spans;
  build_request_spans(in, 100, &ev, ids, spans);
  ASSERT_EQ(spans.size(), 5u);
  const char* names[] = {"llm_request", "queued", "prefill_chunk", "prefill_chunk", "preempted"};
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].name, names[i]);
    EXPECT_EQ(spans[i].trace_id, spans[0].trace_id);
    if (i > 0) {
      EXPECT_EQ(spans[i].parent_span_id, spans[0].span_id);
      EXPECT_EQ(spans[i].kind, SpanKind::kInternal);
      EXPECT_NE(spans[i].span_id, spans[0].span_id);
    }
  }
  EXPECT_EQ(spans[1].start_unix_ns, 100u + 1001 * kMs);
  EXPECT_EQ(spans[1].end_unix_ns, 100u + 1011 * kMs);
  EXPECT_EQ(spans[3].attributes.at(0).value, AttributeValue(int64_t{4}));
  EXPECT_EQ(spans[4].start_unix_ns, 100u + 1041 * kMs);
  EXPECT_EQ(spans[4].end_unix_ns, 100u + 1051 * kMs);
}

TEST(SpanIdSource, SameSeedSameIds) {
  SpanIdSource a(42), b(42), c(43);
  EXPECT_EQ(a.next_trace_id(), b.next_trace_id());
  EXPECT_EQ(a.next_span_id(), b.next_span_id());
  EXPECT_NE(SpanIdSource(42).next_trace_id(), c.next_trace_id());
}

}  // namespace
}  // namespace llm
