#include "sim/replay/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace llm {
namespace {

std::string default_folder() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

[[noreturn]] void cannot_create(const std::string& folder, const std::string& what,
                                const std::string& step, int error) {
  throw std::runtime_error("cannot make a scratch file for " + what + " in " + folder + " (" +
                           step + "): " + std::strerror(error) +
                           "; TMPDIR names the folder, which must exist and be writable");
}

}  // namespace

std::shared_ptr<SpillFile> SpillFile::create(const std::string& folder_in, const std::string& what,
                                             const std::string& room) {
  const std::string folder = folder_in.empty() ? default_folder() : folder_in;
  std::string dir = folder + "/llmsim-samples-XXXXXX";
  std::vector<char> dir_buf(dir.begin(), dir.end());
  dir_buf.push_back('\0');
  if (!mkdtemp(dir_buf.data())) cannot_create(folder, what, "mkdtemp", errno);
  dir = dir_buf.data();
  const std::string path = dir + "/samples";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const int open_error = errno;
  if (fd >= 0) ::unlink(path.c_str());
  ::rmdir(dir.c_str());
  if (fd < 0) cannot_create(folder, what, "open", open_error);
  return std::shared_ptr<SpillFile>(new SpillFile(fd, folder, what, room));
}

std::shared_ptr<SpillFile> SpillFile::adopt(int fd, std::string where) {
  return std::shared_ptr<SpillFile>(
      new SpillFile(fd, std::move(where), "the replay's percentile samples",
                    "a long replay keeps about 100 bytes per sequence there"));
}

SpillFile::~SpillFile() { ::close(fd_); }

void SpillFile::fail(const char* what, int error) const {
  throw std::runtime_error(std::string("cannot ") + what + " the scratch file of " + what_ +
                           " in " + where_ + ": " + std::strerror(error) + " (" + room_ +
                           "; set TMPDIR to a folder with room)");
}

uint64_t SpillFile::append(const void* data, size_t size) {
  const uint64_t at = end_;
  const char* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd_, p + done, size - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  end_ += size;
  return at;
}

void SpillFile::read(uint64_t offset, void* data, size_t size) const {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("read", n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
}

void SpillFile::release(uint64_t offset, size_t size) {
  // Whole file-system blocks of the range are freed, the partial ones at its ends zeroed (only
  // within the range: fallocate(2)).
  if (size == 0) return;
  ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
              static_cast<off_t>(size));
}

}  // namespace llm
