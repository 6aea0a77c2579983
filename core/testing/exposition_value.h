// Reading one series' value out of a Prometheus exposition text, for the tests of the HTTP
// metrics (core/http_metrics_test.cpp, server/http/http_metrics_test.cpp).
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace llm::testing {

// The value of `series` (name{labels} as printed) in `text`, or -1 when it is absent.
inline double value_in(const std::string& text, const std::string& series) {
  const size_t pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 2));
}

// http_requests_total{handler=..,method=..,status=..} with `extra` labels (printed sorted, so
// they must sort before "handler" or be given in place: `extra` goes first).
inline std::string http_requests_series(const std::string& handler, const std::string& method,
                                        const std::string& status, const std::string& extra = "") {
  return "http_requests_total{" + extra + "handler=\"" + handler + "\",method=\"" + method +
         "\",status=\"" + status + "\"}";
}

}  // namespace llm::testing
