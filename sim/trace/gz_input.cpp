#include "sim/trace/gz_input.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sim/trace/trace.h"

namespace llm {

GzInput::GzInput(const std::string& path) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    throw TraceError(path + ": cannot open: " + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f, 1 << 17);
  file_ = f;
  buf_ = std::make_unique<Buf>(file_, path);
  stream_.rdbuf(buf_.get());
  stream_.exceptions(std::ios::badbit);  // a read error is rethrown as the TraceError
}

GzInput::~GzInput() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

GzInput::Buf::int_type GzInput::Buf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const int n = gzread(static_cast<gzFile>(file_), buf_.data(), static_cast<unsigned>(buf_.size()));
  if (n < 0) {
    int code = 0;
    const char* msg = gzerror(static_cast<gzFile>(file_), &code);
    throw TraceError(path_ + ": corrupt gzip data: " + (msg ? msg : "read error"));
  }
  if (n == 0) {
    int code = 0;
    gzerror(static_cast<gzFile>(file_), &code);
    if (code != Z_OK) {
      throw TraceError(path_ + ": corrupt gzip data: unexpected end of file");
    }
    return traits_type::eof();
  }
  setg(buf_.data(), buf_.data(), buf_.data() + n);
  return traits_type::to_int_type(*gptr());
}

bool is_gzip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace llm
