// A scratch file for data a long replay keeps to its end (the per-sequence samples behind its
// exact percentiles, sim/replay/sorted_samples.h; the runs of --sort-arrivals, sorted_arrivals.h):
// bytes appended at its end and read back from any offset. It has no name on disk: it is created in
// a private folder (mkdtemp, mode 0700) under $TMPDIR (else /tmp), unlinked at once and the folder
// removed, so nothing is left behind however the process ends (error, exception, signal); the space
// is freed when the last holder closes it. Every failure throws std::runtime_error naming the
// folder and the reason ("No space left on device", "Permission denied") and what to do about it.
// Thread-safety: reads (read) are safe from several threads; append and release are not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llm {

class SpillFile {
 public:
  // A new file in a private folder under `folder` (empty: $TMPDIR, else /tmp). Messages name
  // what it holds (`what`) and how much room it needs (`room`).
  static std::shared_ptr<SpillFile> create(
      const std::string& folder = "", const std::string& what = "the replay's percentile samples",
      const std::string& room = "a long replay keeps about 100 bytes per sequence there");
  // A file over `fd` (which it closes), named `where` in messages: for tests (e.g. /dev/full).
  static std::shared_ptr<SpillFile> adopt(int fd, std::string where);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `size` bytes; returns the offset they start at.
  uint64_t append(const void* data, size_t size);
  // Reads `size` bytes at `offset` (all of them were appended before).
  void read(uint64_t offset, void* data, size_t size) const;
  // Gives the disk space of [offset, offset + size) back (its bytes are not read again); a file
  // system that cannot keeps it (best effort).
  void release(uint64_t offset, size_t size);
  uint64_t size() const { return end_; }
  const std::string& where() const { return where_; }

 private:
  SpillFile(int fd, std::string where, std::string what, std::string room)
      : fd_(fd), where_(std::move(where)), what_(std::move(what)), room_(std::move(room)) {}
  [[noreturn]] void fail(const char* what, int error) const;

  int fd_;
  std::string where_;  // the folder it was made in, for messages
  std::string what_, room_;
  uint64_t end_ = 0;
};

}  // namespace llm
