#include "backends/formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace llm {

namespace {

std::runtime_error os_error(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " '" + path + "': " + std::strerror(errno));
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw os_error("cannot open", path);
  std::shared_ptr<MappedFile> file(new MappedFile());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw os_error("cannot stat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("cannot read '" + path + "': is a directory");
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      file->data_ = static_cast<const uint8_t*>(p);
      file->size_ = static_cast<size_t>(st.st_size);
      file->mapped_ = true;
      ::close(fd);
      return file;
    }
  }
  // Fallback: read the whole file.
  uint8_t chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      throw os_error("cannot read", path);
    }
    if (n == 0) break;
    file->buffer_.insert(file->buffer_.end(), chunk, chunk + n);
  }
  ::close(fd);
  file->data_ = file->buffer_.data();
  file->size_ = file->buffer_.size();
  return file;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace llm
