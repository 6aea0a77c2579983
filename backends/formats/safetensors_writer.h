// Writer for the safetensors format (see safetensors_reader.h): collects tensors (name, dtype,
// shape, bytes) and string metadata, then serializes them with the data laid out in insertion
// order, the header padded with spaces so the data section starts 8-byte aligned.
// Thread-safety: none; one writer per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "backends/formats/safetensors_reader.h"

namespace llm {

class SafetensorsWriter {
 public:
  // Copies bytes. Throws std::invalid_argument for a duplicate or reserved name ("__metadata__"),
  // a name that is not valid UTF-8, a negative dimension, or bytes.size() != product(shape) *
  // dtype size.
  void add(std::string name, SafetensorsDType dtype, std::vector<int64_t> shape,
           std::span<const std::byte> bytes);
  void add_f32(std::string name, std::vector<int64_t> shape, std::span<const float> values);
  // Throws std::invalid_argument when key or value is not valid UTF-8.
  void set_metadata(std::string key, std::string value);

  std::vector<std::byte> serialize() const;
  // Writes serialize() to path through a PendingFile (core/pending_file.h: path + ".partial",
  // then a rename); throws std::runtime_error naming the path.
  void write(const std::string& path) const;

 private:
  struct Entry {
    std::string name;
    SafetensorsDType dtype;
    std::vector<int64_t> shape;
    std::vector<std::byte> bytes;
  };
  std::vector<Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace llm
