// An output file of an llmsim command written under a temporary name (PATH.partial) and renamed
// into place only on commit(), so that a failed run leaves nothing that looks complete; removed
// when destroyed uncommitted.
// Thread-safety: none; one per output file of one run.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace llm {

class PendingFile {
 public:
  // Throws UsageError naming `flag` when the temporary file cannot be created.
  PendingFile(const std::string& flag, const std::filesystem::path& final_path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  std::ofstream& stream() { return stream_; }
  // Closes and renames; throws std::runtime_error when the write failed.
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace llm
