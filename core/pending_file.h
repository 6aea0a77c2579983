// The one way an output file is written: under a temporary name (PATH.partial, beside PATH) and
// renamed into place only by commit(), so that a run that fails, throws or is killed never leaves
// a file at PATH that looks complete, and an older PATH stays whole until the new one replaces
// it. Every failure throws with one message, "[FLAG: ]cannot write PATH: REASON", and removes
// PATH.partial; a PendingFile destroyed without commit() removes it too. Used by every writer of
// output files (the llmsim commands, the model, safetensors, GGUF and tokenizer writers, llmbench
// --result-json, llmserve --port-file).
// Thread-safety: none; one per output file of one run.
#pragma once

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>

namespace llm {

class PendingFile {
 public:
  // Creates PATH.partial; std::runtime_error when it cannot (no such directory, no permission).
  explicit PendingFile(const std::filesystem::path& path);
  // The same for a PATH a command-line flag named ("--report"): the messages start with the flag,
  // and failing to create PATH.partial is a UsageError (exit code 2), as any bad flag value is.
  PendingFile(std::string flag, const std::filesystem::path& path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  std::ostream& stream() { return stream_; }
  const std::filesystem::path& path() const { return path_; }

  // Flushes, closes and renames PATH.partial to PATH. std::runtime_error when a write failed (a
  // full disk: "... No space left on device") or the rename did, after removing PATH.partial.
  void commit();

 private:
  // A file buffer that remembers why its first failed write failed (errno), which the stream's
  // state alone does not say.
  class Buffer : public std::filebuf {
   public:
    int first_error() const { return first_error_; }

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    void note(bool failed);
    int first_error_ = 0;
  };

  void open();
  [[noreturn]] void fail(const std::string& reason);

  std::filesystem::path path_;
  std::filesystem::path partial_;
  std::string flag_;
  Buffer buffer_;
  std::ostream stream_{&buffer_};
  bool done_ = false;  // renamed, or failed and removed
};

// Writes `bytes` to `path` through a PendingFile (std::runtime_error as above).
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace llm
