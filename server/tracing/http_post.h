// One blocking HTTP/1.1 POST over a fresh TCP connection (Connection: close), with one deadline
// for connecting, sending and reading the status line: what the span exporter's thread needs to
// reach an OTLP/HTTP receiver, without Beast. Plain http only. The deadline is asked again every
// 50 ms, so a caller can bring it forward while the request is in flight (a shutdown).
// Thread-safety: pure function (blocking; call it from the exporter's own thread).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace llm {

struct HttpPostResult {
  int status = 0;     // the response's status code; 0 when there was no response
  std::string error;  // why there was none ("connect: Connection refused", "timed out", ...)
};

HttpPostResult http_post(const std::string& host, int port, const std::string& path,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         const std::string& body,
                         const std::function<std::chrono::steady_clock::time_point()>& deadline);

}  // namespace llm
