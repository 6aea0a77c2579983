#include "sim/cli/pending_file.h"

#include <stdexcept>

#include "core/flag_values.h"

namespace llm {

namespace fs = std::filesystem;

PendingFile::PendingFile(const std::string& flag, const fs::path& final_path)
    : final_(final_path), temp_(final_path.string() + ".partial") {
  stream_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!stream_) throw UsageError(flag + ": cannot write " + temp_.string());
}

PendingFile::~PendingFile() {
  if (!committed_) {
    stream_.close();
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void PendingFile::commit() {
  stream_.close();
  if (!stream_) throw std::runtime_error("write failed: " + temp_.string());
  fs::rename(temp_, final_);
  committed_ = true;
}

}  // namespace llm
