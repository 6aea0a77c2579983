// The API server's own HTTP metrics on /metrics, as vLLM's prometheus_fastapi_instrumentator
// exposes them (default settings):
//   http_requests_total{handler, method, status}   status grouped: "2xx", "4xx", "5xx", ...
//   http_request_duration_seconds{handler, method} buckets 0.1 0.5 1.0
//   http_request_duration_highr_seconds            no labels, many buckets
//   http_request_size_bytes{handler}, http_response_size_bytes{handler}   summaries
// The handler is the route ("/v1/chat/completions"), or "none" for a path no route serves. Paths
// containing one of vLLM's excluded handlers (/metrics, /health, /load, /ping, /version,
// /server_info: the instrumentator matches them anywhere in the path) are not counted.
// An exchange is counted once, when its response is written or its connection ends: the status
// is the one the client got (a stream that began 200 stays 2xx whatever follows); a client that
// left before any response began counts as 499 (4xx), never 5xx. The request size is its body
// and the response size its Content-Length (0 for a stream), as the instrumentator reads them.
// The series of every (handler, method, status class) exist from the start, at 0 (of one route
// with `only`), so an observation is index arithmetic and prometheus-cpp's additions, with no
// lookup or allocation.
// llmserve serves one set; llmsim's series exports (sim/replay/target_metrics.h) keep one per
// simulated server in one registry, told apart by the labels a Prometheus scrape adds (`job`,
// `instance`).
// Thread-safety: record() and the lookups from any thread.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/labels.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace llm {

class HttpMetrics {
 public:
  static constexpr int kNumHandlers = 7;       // the routes, then "none"
  static constexpr int kNumMethods = 2;        // GET, POST: all llmserve's routes take
  static constexpr int kNumStatusClasses = 3;  // 2xx, 4xx, 5xx: the final statuses it sends
  static constexpr int kExcluded = -1;
  static constexpr int kClientClosedRequest = 499;  // nginx's code for a client that left

  // One route (handler and method indices, as handler_of and method_of give them).
  struct Route {
    int handler = 0;
    int method = 0;
  };
  // `target` labels go on every series (none for llmserve's own /metrics). `only`: the series of
  // that route alone exist (llmsim's servers, which serve one route: the instrumentator creates a
  // route's series at its first request, so a real scrape has no series of an unused route), and
  // exchanges of any other route are not counted; none: every route's, as llmserve serves them.
  explicit HttpMetrics(prometheus::Registry& registry, const prometheus::Labels& target = {},
                       std::optional<Route> only = std::nullopt);

  // The handler index of a request path, or kExcluded.
  static int handler_of(std::string_view path);
  // The method index, or kExcluded for another method (not counted: no route takes one).
  static int method_of(std::string_view method);

  struct Exchange {
    int handler = kExcluded;
    int method = kExcluded;
    int status = 0;
    double seconds = 0;
    size_t request_bytes = 0;
    size_t response_bytes = 0;
  };
  void record(const Exchange& exchange);

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& duration_;
  prometheus::Family<prometheus::Histogram>& duration_highr_;
  prometheus::Family<prometheus::Summary>& request_size_;
  prometheus::Family<prometheus::Summary>& response_size_;
  std::array<prometheus::Counter*, kNumHandlers * kNumMethods * kNumStatusClasses> counts_{};
  std::array<prometheus::Histogram*, kNumHandlers * kNumMethods> durations_{};
  prometheus::Histogram* highr_ = nullptr;
  std::array<prometheus::Summary*, kNumHandlers> request_sizes_{};
  std::array<prometheus::Summary*, kNumHandlers> response_sizes_{};
};

}  // namespace llm
