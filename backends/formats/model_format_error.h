// ModelFormatError: the error every model-file reader (GGUF, safetensors, config.json,
// tokenizer.json) throws for a file it cannot use: unreadable, truncated, corrupt, inconsistent or
// unsupported. file: the path (or a label for in-memory data); field: the tensor name or config key
// concerned ("" when the file as a whole is at fault); what(): "file: field: detail".
// Thread-safety: immutable once built.
#pragma once

#include <stdexcept>
#include <string>

namespace llm {

class ModelFormatError : public std::runtime_error {
 public:
  ModelFormatError(std::string file, std::string field, const std::string& detail)
      : std::runtime_error(file + ": " + (field.empty() ? "" : field + ": ") + detail),
        file_(std::move(file)),
        field_(std::move(field)) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

}  // namespace llm
