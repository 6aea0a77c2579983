// GGUF v2/v3 reader: header, metadata key-values, tensor infos, alignment, and the tensor data
// section (memory-mapped). Every length and offset is checked against the bytes that remain, so a
// truncated or corrupt file gives a GgufError (file name, byte offset, what is wrong), never a read
// past the end. Format facts from the GGUF specification (ggml docs/gguf.md).
// Thread-safety: a GgufFile is immutable after parsing; const access is safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/formats/gguf_types.h"
#include "backends/formats/gguf_value.h"
#include "backends/formats/model_format_error.h"

namespace llm {

class MappedFile;

// A GGUF file that cannot be used. It is a ModelFormatError (field "": the byte offset says where),
// so callers that load any model format catch one type.
class GgufError : public ModelFormatError {
 public:
  GgufError(std::string file, uint64_t offset, const std::string& what);
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne[0] first (fastest-varying), as stored
  GgmlType type = GgmlType::kF32;
  uint64_t offset = 0;  // relative to the data section
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;
  const uint8_t* data = nullptr;  // into the mapped file; valid while the GgufFile lives
};

class GgufFile {
 public:
  static constexpr uint32_t kDefaultAlignment = 32;

  // Maps and parses a file. Throws GgufError (also for an unreadable file, offset 0).
  static GgufFile open(const std::string& path);
  // Parses bytes held in memory (tests); `name` is used in error messages.
  static GgufFile parse(std::vector<uint8_t> bytes, const std::string& name = "<memory>");

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // start of the tensor data section
  uint64_t file_size() const { return size_; }

  // Metadata in file order.
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return kv_; }
  const GgufValue* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // Typed accessors: throw GgufError when the key is missing or has an incompatible type.
  // Integer getters accept any integer type whose value fits; get_f32 accepts floats and ints.
  std::string get_string(std::string_view key) const;
  uint32_t get_u32(std::string_view key) const;
  int64_t get_i64(std::string_view key) const;
  float get_f32(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::vector<GgufValue>& get_array(std::string_view key) const;
  std::vector<std::string> get_string_array(std::string_view key) const;
  std::vector<float> get_f32_array(std::string_view key) const;
  std::vector<int64_t> get_int_array(std::string_view key) const;

  // Optional variants: nullopt when missing; still throw on a wrong type.
  std::optional<std::string> find_string(std::string_view key) const;
  std::optional<uint32_t> find_u32(std::string_view key) const;
  std::optional<float> find_f32(std::string_view key) const;
  std::optional<bool> find_bool(std::string_view key) const;

  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* find_tensor(std::string_view name) const;

 private:
  friend class GgufParser;
  GgufFile() = default;
  [[noreturn]] void key_error(std::string_view key, const std::string& what) const;

  std::string name_;
  std::shared_ptr<const MappedFile> mapped_;
  std::shared_ptr<const std::vector<uint8_t>> owned_;
  uint64_t size_ = 0;
  uint32_t version_ = 0;
  uint32_t alignment_ = kDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::vector<uint64_t> kv_offsets_;
  std::map<std::string, size_t, std::less<>> kv_index_;
  std::vector<GgufTensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
};

}  // namespace llm
