// Builds a GGUF v3 (or v2) file in memory: metadata key-values in insertion order and tensors
// with their data, aligned per general.alignment. Used by tests and the tiny-model generator.
// Thread-safety: none; one writer per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/formats/gguf_types.h"
#include "backends/formats/gguf_value.h"

namespace llm {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}

  // Replaces an existing key's value in place.
  void set(const std::string& key, GgufValue value);
  void set_string(const std::string& key, std::string v);
  void set_u32(const std::string& key, uint32_t v);
  void set_i32(const std::string& key, int32_t v);
  void set_f32(const std::string& key, float v);
  void set_bool(const std::string& key, bool v);
  void set_string_array(const std::string& key, const std::vector<std::string>& v);
  void set_f32_array(const std::string& key, const std::vector<float>& v);
  void set_i32_array(const std::string& key, const std::vector<int32_t>& v);
  // Sets general.alignment (a power of two) as UINT32.
  void set_alignment(uint32_t alignment);

  // `data` must hold exactly the bytes the type and dims call for (checked; throws
  // std::invalid_argument otherwise).
  void add_tensor(const std::string& name, const std::vector<uint64_t>& dims, GgmlType type,
                  std::vector<uint8_t> data);

  std::vector<uint8_t> to_bytes() const;
  // Writes atomically through a PendingFile (core/pending_file.h). Throws std::runtime_error
  // naming the path on I/O failure.
  void write_file(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    GgmlType type;
    std::vector<uint8_t> data;
  };
  uint32_t version_;
  uint32_t alignment_ = 32;
  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::vector<Tensor> tensors_;
};

}  // namespace llm
