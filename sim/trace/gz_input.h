// A file read through zlib as an std::istream: gzip-compressed (.csv.gz, .jsonl.gz) or plain
// (zlib passes plain bytes through), in 64 KiB pieces, so a long trace is never whole in memory.
// Thread-safety: one instance per thread.
#pragma once

#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace llm {

class GzInput {
 public:
  // Throws TraceError "PATH: cannot open: REASON".
  explicit GzInput(const std::string& path);
  ~GzInput();
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;

  std::istream& stream() { return stream_; }

 private:
  class Buf : public std::streambuf {
   public:
    Buf(void* file, std::string path) : file_(file), path_(std::move(path)), buf_(1 << 16) {}

   protected:
    int_type underflow() override;  // throws TraceError "PATH: corrupt gzip data: ..."

   private:
    void* file_;  // gzFile
    std::string path_;
    std::vector<char> buf_;
  };

  void* file_ = nullptr;
  std::unique_ptr<Buf> buf_;
  std::istream stream_{nullptr};
};

// Whether the file starts with gzip's magic bytes (false when it cannot be read).
bool is_gzip_file(const std::string& path);

}  // namespace llm
