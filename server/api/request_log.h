// The optional structured request log (--request-log FILE): one JSON line per finished API
// request with its time, ids, W3C traceparent, model, token counts, finish reasons and the five
// per-request timings. Prompt and completion text only when content logging is on.
// Thread-safety: write() may be called from any thread (one mutex; one line per call).
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/request_metrics.h"

namespace llm {

struct RequestLogEntry {
  std::string request_id;
  std::string traceparent;  // "" when absent or malformed
  std::string endpoint;     // "/v1/chat/completions" ...
  std::string model;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::vector<std::string> finish_reasons;   // one per choice
  std::optional<PerRequestMetrics> metrics;  // null when not attributable (n > 1, several prompts)
  std::vector<std::string> prompts;          // only written with content logging
  std::vector<std::string> completions;
};

class RequestLog {
 public:
  // Opens `path` for appending; throws std::runtime_error when it cannot.
  RequestLog(const std::string& path, bool log_content);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  void write(const RequestLogEntry& entry);

 private:
  std::mutex mutex_;
  std::FILE* file_;
  bool log_content_;
};

// True for a syntactically valid W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>", ids not all 0).
bool valid_traceparent(const std::string& value);

}  // namespace llm
