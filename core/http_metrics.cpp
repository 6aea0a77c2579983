#include "core/http_metrics.h"

#include <string>

namespace llm {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildHistogram;
using prometheus::BuildSummary;

// The routes llmserve serves that the instrumentator counts (/v1/responses with the Responses
// API), and "none".
constexpr std::string_view kHandlers[HttpMetrics::kNumHandlers] = {"/v1/chat/completions",
                                                                   "/v1/completions",
                                                                   "/v1/responses",
                                                                   "/v1/models",
                                                                   "/tokenize",
                                                                   "/detokenize",
                                                                   "none"};
constexpr std::string_view kMethods[HttpMetrics::kNumMethods] = {"GET", "POST"};
constexpr std::string_view kStatusClasses[HttpMetrics::kNumStatusClasses] = {"2xx", "4xx", "5xx"};

// 200..299 -> 0, 400..499 -> 1, 500..599 -> 2; -1 for a status we never send as final.
int status_class_of(int status) {
  switch (status / 100) {
    case 2:
      return 0;
    case 4:
      return 1;
    case 5:
      return 2;
    default:
      return -1;
  }
}
constexpr std::string_view kExcludedHandlers[] = {"/metrics", "/health",  "/load",
                                                  "/ping",    "/version", "/server_info"};

std::string text(std::string_view s) { return std::string(s); }

// `labels` with the target's labels added.
prometheus::Labels with_target(prometheus::Labels labels, const prometheus::Labels& target) {
  labels.insert(target.begin(), target.end());
  return labels;
}

}  // namespace

HttpMetrics::HttpMetrics(prometheus::Registry& r, const prometheus::Labels& target,
                         std::optional<Route> only)
    : requests_(BuildCounter()
                    .Name("http_requests")
                    .Help("Total number of requests by method, status and handler.")
                    .Register(r)),
      duration_(BuildHistogram()
                    .Name("http_request_duration_seconds")
                    .Help("Latency by handler and method, with few buckets.")
                    .Register(r)),
      duration_highr_(BuildHistogram()
                          .Name("http_request_duration_highr_seconds")
                          .Help("Latency of all requests, with many buckets and no labels.")
                          .Register(r)),
      request_size_(BuildSummary()
                        .Name("http_request_size_bytes")
                        .Help("Content bytes of requests.")
                        .Register(r)),
      response_size_(BuildSummary()
                         .Name("http_response_size_bytes")
                         .Help("Content bytes of responses.")
                         .Register(r)) {
  const prometheus::Histogram::BucketBoundaries few = {0.1, 0.5, 1.0};
  for (int h = 0; h < kNumHandlers; ++h) {
    if (only && only->handler != h) continue;
    const std::string handler = text(kHandlers[h]);
    for (int m = 0; m < kNumMethods; ++m) {
      if (only && only->method != m) continue;
      const std::string method = text(kMethods[m]);
      durations_[h * kNumMethods + m] =
          &duration_.Add(with_target({{"handler", handler}, {"method", method}}, target), few);
      for (int s = 0; s < kNumStatusClasses; ++s) {
        counts_[(h * kNumMethods + m) * kNumStatusClasses + s] = &requests_.Add(with_target(
            {{"handler", handler}, {"method", method}, {"status", text(kStatusClasses[s])}},
            target));
      }
    }
    request_sizes_[h] = &request_size_.Add(with_target({{"handler", handler}}, target),
                                           prometheus::Summary::Quantiles{});
    response_sizes_[h] = &response_size_.Add(with_target({{"handler", handler}}, target),
                                             prometheus::Summary::Quantiles{});
  }
  highr_ = &duration_highr_.Add(
      target, prometheus::Histogram::BucketBoundaries{0.01, 0.025, 0.05, 0.075, 0.1,  0.25, 0.5,
                                                      0.75, 1.0,   1.5,  2.0,   2.5,  3.0,  3.5,
                                                      4.0,  4.5,   5.0,  7.5,   10.0, 30.0, 60.0});
}

int HttpMetrics::handler_of(std::string_view path) {
  for (std::string_view excluded : kExcludedHandlers) {
    if (path.find(excluded) != std::string_view::npos) return kExcluded;
  }
  for (int h = 0; h < kNumHandlers - 1; ++h) {
    if (path == kHandlers[h]) return h;
  }
  return kNumHandlers - 1;  // "none"
}

int HttpMetrics::method_of(std::string_view method) {
  for (int m = 0; m < kNumMethods; ++m) {
    if (method == kMethods[m]) return m;
  }
  return kExcluded;
}

void HttpMetrics::record(const Exchange& e) {
  if (e.handler < 0 || e.handler >= kNumHandlers || e.method < 0 || e.method >= kNumMethods ||
      durations_[e.handler * kNumMethods + e.method] == nullptr) {  // a route without series
    return;
  }
  const int status_class = status_class_of(e.status);
  if (status_class >= 0) {
    counts_[(e.handler * kNumMethods + e.method) * kNumStatusClasses + status_class]->Increment();
  }
  durations_[e.handler * kNumMethods + e.method]->Observe(e.seconds);
  request_sizes_[e.handler]->Observe(static_cast<double>(e.request_bytes));
  response_sizes_[e.handler]->Observe(static_cast<double>(e.response_bytes));
  // Last: a reader that sees the exchange counted here sees all of it in its next scrape (a
  // scrape reads family after family, so one scrape can still be torn).
  highr_->Observe(e.seconds);
}

}  // namespace llm
