// gzip (RFC 1952) of a buffer with zlib, for OTLP/HTTP's Content-Encoding: gzip.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace llm {

// Throws std::runtime_error when zlib fails (out of memory).
std::string gzip_compress(std::string_view data);

}  // namespace llm
