// Fuzz target: raw bytes from a client socket into Boost.Beast's request parser, configured and
// driven as server/http/http_server.cpp's sessions do: a fresh http::request_parser<string_body>
// per request with body_limit and header_limit, bytes arriving in chunks into a buffer the parser
// consumes (Beast's read loop), several keep-alive requests on one connection, then the fields
// the session reads from a complete request. Byte 0 picks the chunk size (0: everything at once),
// byte 1 the limits (the server's defaults, or small ones so the 413/431 paths run).
// Checks: no crash, hang, sanitizer report or Beast assertion (they are on here, unlike in
// llmserve's build), except one known-wrong assertion; a complete request's body is within
// body_limit.
#define BOOST_ENABLE_ASSERT_HANDLER  // before any Boost header: see boost::assertion_failed below

#include <boost/asio/buffer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "server/http/http_server.h"  // HttpServerConfig's defaults only (no server code linked)

namespace boost {

// Beast 1.74's basic_parser::parse_chunk_header asserts n >= 5 when it resumes the trailers of a
// last chunk that came without a preceding chunk ("0\r\n" then one more byte); the code after it
// is correct for n >= 3 (upstream boostorg/beast PR 2861 relaxed the assertion). Every other
// assertion is a finding.
void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  if (std::string_view(expr) == "n >= 5" && std::string_view(file).ends_with("basic_parser.ipp")) {
    return;
  }
  llm::fuzz::finding("Boost assertion failed", std::string(file) + ":" + std::to_string(line) +
                                                   ": " + function + ": " + expr);
}

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
  assertion_failed(expr, function, file, line);
}

}  // namespace boost

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

// The socket: hands out the input `chunk` bytes at a time.
struct Connection {
  std::string_view rest;
  size_t chunk;
  bool read(std::string& buffer) {
    if (rest.empty()) return false;
    const size_t n = chunk == 0 ? rest.size() : std::min(chunk, rest.size());
    buffer.append(rest.substr(0, n));
    rest.remove_prefix(n);
    return true;
  }
};

// One request as Beast's http::read does it; false when the session would stop reading (an
// error, end of stream, or a response that closes the connection).
bool read_one_request(Connection& conn, std::string& buffer, uint64_t body_limit,
                      uint32_t header_limit) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(body_limit);
  parser.header_limit(header_limit);
  beast::error_code ec;
  while (!parser.is_done()) {
    if (buffer.empty() || ec == http::error::need_more) {
      ec = {};
      if (!conn.read(buffer)) {
        if (!parser.got_some()) return false;  // end_of_stream: the session closes
        parser.put_eof(ec);
        if (ec) return false;
        break;
      }
    }
    const size_t used = parser.put(net::buffer(buffer.data(), buffer.size()), ec);
    buffer.erase(0, used);
    if (ec && ec != http::error::need_more) return false;  // 400, 413, 431 or a close
  }
  // What Session::on_header and Session::handle read.
  http::request<http::string_body> req = parser.release();
  const bool continue_expected = beast::iequals(req[http::field::expect], "100-continue");
  const std::string method(req.method_string().data(), req.method_string().size());
  const std::string_view target(req.target().data(), req.target().size());
  const std::string path(target.substr(0, target.find('?')));
  const std::string authorization(req[http::field::authorization]);
  const std::string request_id(req["X-Request-Id"]);
  const std::string traceparent(req["traceparent"]);
  llm::fuzz::require(req.body().size() <= body_limit,
                     "a complete request's body exceeds the limit");
  (void)continue_expected;
  return req.keep_alive();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const llm::HttpServerConfig server;  // the limits llmserve starts with
  const bool small = (data[1] & 1) != 0;
  const uint64_t body_limit = small ? 64 : static_cast<uint64_t>(server.max_body_bytes);
  const uint32_t header_limit = small ? 128 : static_cast<uint32_t>(server.max_header_bytes);
  Connection conn{std::string_view(reinterpret_cast<const char*>(data) + 2, size - 2), data[0]};
  std::string buffer;  // the session's flat_buffer: bytes read but not yet parsed
  for (int i = 0; i < 8 && read_one_request(conn, buffer, body_limit, header_limit); ++i) {
  }
  return 0;
}
