// The instrumentator's HTTP metrics: handler names, exclusions and status classes (table tests of
// HttpMetrics), and a scrape target's labels on every series.
#include "core/http_metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "core/exposition.h"
#include "core/testing/exposition_value.h"

namespace llm {
namespace {

using testing::http_requests_series;
using testing::value_in;

TEST(HttpMetrics, HandlersAreRoutesOrNoneAndVllmsExclusionsAreNotCounted) {
  struct Case {
    const char* path;
    int handler;
  };
  const Case cases[] = {
      {"/v1/chat/completions", 0},
      {"/v1/completions", 1},
      {"/v1/responses", 2},
      {"/v1/models", 3},
      {"/tokenize", 4},
      {"/detokenize", 5},
      {"/v1/chat/completions/", 6},  // no such route: "none"
      {"/nope", 6},
      {"/metrics", HttpMetrics::kExcluded},
      {"/v1/metrics", HttpMetrics::kExcluded},  // the instrumentator matches anywhere in the path
      {"/health", HttpMetrics::kExcluded},
      {"/version", HttpMetrics::kExcluded},
      {"/load", HttpMetrics::kExcluded},
      {"/ping", HttpMetrics::kExcluded},
      {"/server_info", HttpMetrics::kExcluded},
  };
  for (const Case& c : cases) EXPECT_EQ(HttpMetrics::handler_of(c.path), c.handler) << c.path;
  EXPECT_EQ(HttpMetrics::method_of("GET"), 0);
  EXPECT_EQ(HttpMetrics::method_of("POST"), 1);
  EXPECT_EQ(HttpMetrics::method_of("DELETE"), HttpMetrics::kExcluded);
}

TEST(HttpMetrics, StatusesAreGroupedByClassAndEverySeriesExistsFromTheStart) {
  prometheus::Registry registry;
  HttpMetrics metrics(registry);
  std::string text = serialize_exposition(registry.Collect());
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "5xx")), 0) << text;
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_count"), 0) << text;
  struct Case {
    int status;
    const char* group;
  };
  const Case cases[] = {{200, "2xx"}, {201, "2xx"}, {400, "4xx"}, {404, "4xx"},
                        {499, "4xx"}, {500, "5xx"}, {503, "5xx"}};
  for (const Case& c : cases) {
    HttpMetrics::Exchange e;
    e.handler = HttpMetrics::handler_of("/v1/completions");
    e.method = HttpMetrics::method_of("POST");
    e.status = c.status;
    e.seconds = 0.3;
    e.request_bytes = 100;
    e.response_bytes = 50;
    metrics.record(e);
  }
  text = serialize_exposition(registry.Collect());
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "2xx")), 2) << text;
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "4xx")), 3) << text;
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "5xx")), 2) << text;
  const std::string by_route = "{handler=\"/v1/completions\",method=\"POST\"}";
  EXPECT_EQ(value_in(text, "http_request_duration_seconds_count" + by_route), 7);
  // 0.3 s is above the 0.1 bound and within 0.5 (bounds printed as Python floats).
  EXPECT_EQ(value_in(text,
                     "http_request_duration_seconds_bucket{handler=\"/v1/completions\","
                     "le=\"0.1\",method=\"POST\"}"),
            0);
  EXPECT_EQ(value_in(text,
                     "http_request_duration_seconds_bucket{handler=\"/v1/completions\","
                     "le=\"0.5\",method=\"POST\"}"),
            7);
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_bucket{le=\"0.25\"}"), 0);
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_bucket{le=\"0.5\"}"), 7);
  EXPECT_EQ(value_in(text, "http_request_size_bytes_sum{handler=\"/v1/completions\"}"), 700);
  EXPECT_EQ(value_in(text, "http_response_size_bytes_count{handler=\"/v1/completions\"}"), 7);
  EXPECT_NE(text.find("# TYPE http_request_size_bytes summary"), std::string::npos);
}

TEST(HttpMetrics, TargetLabelsGoOnEverySeriesAndTargetsShareARegistry) {
  prometheus::Registry registry;
  HttpMetrics a(registry, {{"instance", "engine-0"}, {"job", "vllm"}});
  HttpMetrics b(registry, {{"instance", "engine-1"}, {"job", "vllm"}});
  HttpMetrics::Exchange e;
  e.handler = HttpMetrics::handler_of("/v1/completions");
  e.method = HttpMetrics::method_of("POST");
  e.status = 503;
  e.seconds = 0.05;
  b.record(e);
  const std::string text = serialize_exposition(registry.Collect());
  const std::string target0 = "instance=\"engine-0\",job=\"vllm\",";
  const std::string target1 = "instance=\"engine-1\",job=\"vllm\",";
  EXPECT_EQ(value_in(text, "http_requests_total{handler=\"/v1/completions\"," + target1 +
                               "method=\"POST\",status=\"5xx\"}"),
            1)
      << text;
  EXPECT_EQ(value_in(text, "http_requests_total{handler=\"/v1/completions\"," + target0 +
                               "method=\"POST\",status=\"5xx\"}"),
            0);
  EXPECT_EQ(
      value_in(text, "http_request_duration_highr_seconds_bucket{" + target1 + "le=\"0.05\"}"), 1);
  EXPECT_EQ(value_in(text, "http_request_size_bytes_count{handler=\"/v1/completions\"," +
                               target0.substr(0, target0.size() - 1) + "}"),
            0);
  // One family per name: each # TYPE line once.
  size_t types = 0;
  for (size_t at = text.find("# TYPE http_requests_total"); at != std::string::npos;
       at = text.find("# TYPE http_requests_total", at + 1)) {
    ++types;
  }
  EXPECT_EQ(types, 1u);
}

TEST(HttpMetrics, OneRouteOnlyHasTheSeriesOfThatRouteAndCountsNoOther) {
  prometheus::Registry registry;
  const int completions = HttpMetrics::handler_of("/v1/completions");
  const int post = HttpMetrics::method_of("POST");
  HttpMetrics metrics(registry, {}, HttpMetrics::Route{completions, post});
  HttpMetrics::Exchange e;
  e.handler = completions;
  e.method = post;
  e.status = 500;
  e.seconds = 0.2;
  metrics.record(e);
  e.handler = HttpMetrics::handler_of("/v1/chat/completions");  // no series: not counted
  metrics.record(e);
  e.handler = completions;
  e.method = HttpMetrics::method_of("GET");
  metrics.record(e);
  const std::string text = serialize_exposition(registry.Collect());
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "5xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series("/v1/completions", "POST", "2xx")), 0) << text;
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_count"), 1) << text;
  EXPECT_EQ(value_in(text, "http_request_size_bytes_count{handler=\"/v1/completions\"}"), 1);
  for (const char* absent : {"/v1/chat/completions", "/tokenize", "method=\"GET\"", "none"}) {
    EXPECT_EQ(text.find(absent), std::string::npos) << absent;
  }
  // 3 status classes of one route.
  size_t requests = 0;
  for (size_t at = text.find("\nhttp_requests_total{"); at != std::string::npos;
       at = text.find("\nhttp_requests_total{", at + 1)) {
    ++requests;
  }
  EXPECT_EQ(requests, 3u);
}

}  // namespace
}  // namespace llm
