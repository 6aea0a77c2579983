#include "telemetry/gzip.h"

#include <zlib.h>

#include <stdexcept>

namespace llm {

std::string gzip_compress(std::string_view data) {
  z_stream z{};
  constexpr int kGzipWindowBits = 15 + 16;  // 15-bit window, gzip header and trailer
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw std::runtime_error("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip: deflate failed");
  out.resize(written);
  return out;
}

}  // namespace llm
