// The HTTP request and response as plain values, so routing and the API layer stay free of
// Asio/Beast, plus the raw HTTP/1.1 serialization the sessions write (responses with a body, the
// head of a chunked event stream, and chunk framing).
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llm {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target without its query string
  std::string query;   // the target's query string, without its '?' ("" when none)
  std::string body;
  std::string authorization;
  std::string request_id;   // X-Request-Id ("" when absent)
  std::string traceparent;  // W3C trace context ("" when absent)
  std::string tracestate;   // W3C trace context's vendor list ("" when absent)
  // The Content-Type header as sent ("" when absent); the default is a JSON client's.
  std::string content_type = "application/json";
  bool keep_alive = true;
  uint16_t local_port = 0;  // the port the request was received on (x-inference-port)
  // Every header as sent (names as the client wrote them), for what the fields above do not name.
  std::vector<std::pair<std::string, std::string>> headers;
  // The value of header `name` (case-insensitive); "" when absent.
  std::string_view header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

const char* http_reason(int status);  // "OK", "Bad Request", ...

// Status line, Content-Type, Content-Length, Connection, extra headers, blank line, body.
std::string serialize_response(const HttpResponse& response, bool keep_alive);
// The head of a 200 text/event-stream response with Transfer-Encoding: chunked.
std::string serialize_stream_head(const std::vector<std::pair<std::string, std::string>>& headers,
                                  bool keep_alive);
// One chunk of a chunked body ("" for an empty input), and the terminating chunk.
std::string chunk(std::string_view data);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace llm
