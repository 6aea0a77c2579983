// A whole file mapped read-only into memory (mmap), with a plain read() fallback when mapping is
// not possible (e.g. special files). Empty files map to an empty span.
// Thread-safety: immutable after open; const access is safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llm {

class MappedFile {
 public:
  // Throws std::runtime_error naming the path and errno text when the file cannot be read.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool is_mapped() const { return mapped_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> buffer_;  // fallback storage
};

}  // namespace llm
