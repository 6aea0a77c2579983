#include "core/pending_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/flag_values.h"

namespace llm {

namespace fs = std::filesystem;

PendingFile::PendingFile(const fs::path& path) : path_(path), partial_(path.string() + ".partial") {
  open();
}

PendingFile::PendingFile(std::string flag, const fs::path& path)
    : path_(path), partial_(path.string() + ".partial"), flag_(std::move(flag)) {
  open();
}

void PendingFile::Buffer::note(bool failed) {
  if (failed && first_error_ == 0) first_error_ = errno != 0 ? errno : EIO;
}

PendingFile::Buffer::int_type PendingFile::Buffer::overflow(int_type c) {
  errno = 0;
  const int_type r = std::filebuf::overflow(c);
  note(traits_type::eq_int_type(r, traits_type::eof()));  // success is not_eof(c), even for eof
  return r;
}

std::streamsize PendingFile::Buffer::xsputn(const char* s, std::streamsize n) {
  errno = 0;
  const std::streamsize r = std::filebuf::xsputn(s, n);
  note(r < n);
  return r;
}

int PendingFile::Buffer::sync() {
  errno = 0;
  const int r = std::filebuf::sync();
  note(r != 0);
  return r;
}

void PendingFile::open() {
  errno = 0;
  if (buffer_.open(partial_, std::ios::out | std::ios::binary | std::ios::trunc)) return;
  const std::string reason = errno != 0 ? std::strerror(errno) : "cannot create it";
  done_ = true;
  if (!flag_.empty()) throw UsageError(flag_ + ": cannot write " + path_.string() + ": " + reason);
  throw std::runtime_error("cannot write " + path_.string() + ": " + reason);
}

PendingFile::~PendingFile() {
  if (done_) return;
  buffer_.close();
  std::error_code ignored;
  fs::remove(partial_, ignored);
}

void PendingFile::fail(const std::string& reason) {
  buffer_.close();
  std::error_code ignored;
  fs::remove(partial_, ignored);
  done_ = true;
  throw std::runtime_error((flag_.empty() ? "" : flag_ + ": ") + "cannot write " + path_.string() +
                           ": " + reason);
}

void PendingFile::commit() {
  if (done_) throw std::logic_error("PendingFile::commit: " + path_.string() + " already done");
  stream_.flush();
  const bool written = static_cast<bool>(stream_);
  errno = 0;
  const bool closed = buffer_.close() != nullptr;
  if (!written || !closed || buffer_.first_error() != 0) {
    const int error = buffer_.first_error() != 0 ? buffer_.first_error() : errno;
    fail(error != 0 ? std::strerror(error) : "the write failed");
  }
  std::error_code ec;
  fs::rename(partial_, path_, ec);
  if (ec) fail(ec.message());
  done_ = true;
}

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  PendingFile file(path);
  file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.commit();
}

}  // namespace llm
