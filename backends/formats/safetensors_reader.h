// Reader for the safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// (tensor name -> {"dtype", "shape", "data_offsets": [begin, end]}, plus an optional
// "__metadata__" string->string map), then the data section the offsets index. The file is
// memory-mapped read-only through MappedFile (read into memory when mmap is unavailable) and fully
// validated on open: header length within the file and under kMaxHeaderBytes, well-formed JSON,
// known dtypes, sizes that match the shapes, offsets inside the data section that neither overlap
// nor leave holes. After open succeeds every TensorInfo's bytes lie inside the mapping. Tensor data
// is only as aligned as the file makes it (the writer here aligns the data section to 8 bytes).
// ShardedSafetensors opens a model.safetensors.index.json and the shards its weight_map names.
// Thread-safety: immutable after open; concurrent reads are safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/formats/model_format_error.h"

namespace llm {

enum class SafetensorsDType {
  kBool,
  kU8,
  kI8,
  kF8E4M3,
  kF8E5M2,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kI64,
  kU64,
  kF64
};

// "F32" -> kF32 etc. (the names safetensors uses); nullopt for an unknown name.
std::optional<SafetensorsDType> parse_safetensors_dtype(std::string_view name);
const char* safetensors_dtype_name(SafetensorsDType dtype);
size_t safetensors_dtype_size(SafetensorsDType dtype);

struct SafetensorsTensor {
  std::string name;
  SafetensorsDType dtype;
  std::vector<int64_t> shape;  // empty for a scalar
  uint64_t num_elements = 0;
  uint64_t offset = 0;  // from the start of the data section
  uint64_t size = 0;    // bytes == num_elements * dtype size
};

class SafetensorsFile {
 public:
  static constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

  // Maps and validates the file; throws ModelFormatError naming the file (and tensor).
  static SafetensorsFile open(const std::string& path);
  // Validates an in-memory image (the bytes are copied); label names it in errors.
  static SafetensorsFile from_bytes(std::span<const std::byte> bytes, std::string label);

  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  // Sorted by name.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // nullptr when absent.
  const SafetensorsTensor* find(std::string_view name) const;
  // Throws ModelFormatError when absent.
  const SafetensorsTensor& at(std::string_view name) const;
  std::span<const std::byte> data(const SafetensorsTensor& tensor) const;

 private:
  struct Storage;
  SafetensorsFile() = default;
  void parse();

  std::string path_;
  std::unique_ptr<Storage> storage_;
  std::span<const std::byte> bytes_;  // the whole file
  uint64_t data_start_ = 0;
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, std::string> metadata_;
};

// A model split over shards by model.safetensors.index.json ({"metadata": {...}, "weight_map":
// {tensor name: shard file name}}). Shard names must be plain file names in the index's folder.
// Every tensor the weight map names must be in its shard, and no shard may hold a tensor the
// weight map places elsewhere.
class ShardedSafetensors {
 public:
  static ShardedSafetensors open(const std::string& index_path);

  struct Ref {
    const SafetensorsFile* file;
    const SafetensorsTensor* tensor;
  };
  // Tensor names in sorted order.
  std::vector<std::string> tensor_names() const;
  std::optional<Ref> find(std::string_view name) const;
  Ref at(std::string_view name) const;
  std::span<const std::byte> data(const Ref& ref) const { return ref.file->data(*ref.tensor); }
  const std::vector<SafetensorsFile>& shards() const { return shards_; }

 private:
  std::string index_path_;
  std::vector<SafetensorsFile> shards_;
  std::map<std::string, size_t, std::less<>> shard_of_;  // tensor name -> index into shards_
};

}  // namespace llm
