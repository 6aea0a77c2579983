// Safetensors reader: mapping the file and validating its header (see safetensors_reader.h).
#include "backends/formats/safetensors_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "backends/formats/mapped_file.h"

namespace llm {
namespace {

struct DTypeEntry {
  SafetensorsDType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {SafetensorsDType::kBool, "BOOL", 1},      {SafetensorsDType::kU8, "U8", 1},
    {SafetensorsDType::kI8, "I8", 1},          {SafetensorsDType::kF8E4M3, "F8_E4M3", 1},
    {SafetensorsDType::kF8E5M2, "F8_E5M2", 1}, {SafetensorsDType::kI16, "I16", 2},
    {SafetensorsDType::kU16, "U16", 2},        {SafetensorsDType::kF16, "F16", 2},
    {SafetensorsDType::kBF16, "BF16", 2},      {SafetensorsDType::kI32, "I32", 4},
    {SafetensorsDType::kU32, "U32", 4},        {SafetensorsDType::kF32, "F32", 4},
    {SafetensorsDType::kI64, "I64", 8},        {SafetensorsDType::kU64, "U64", 8},
    {SafetensorsDType::kF64, "F64", 8},
};

const DTypeEntry& entry(SafetensorsDType dtype) {
  for (const DTypeEntry& e : kDTypes) {
    if (e.dtype == dtype) return e;
  }
  return kDTypes[0];  // unreachable for valid enum values
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::optional<SafetensorsDType> parse_safetensors_dtype(std::string_view name) {
  for (const DTypeEntry& e : kDTypes) {
    if (name == e.name) return e.dtype;
  }
  return std::nullopt;
}
const char* safetensors_dtype_name(SafetensorsDType dtype) { return entry(dtype).name; }
size_t safetensors_dtype_size(SafetensorsDType dtype) { return entry(dtype).size; }

// Owns the file's bytes: a MappedFile (mapped, or read when mapping is not possible), or a copy
// of in-memory bytes.
struct SafetensorsFile::Storage {
  std::shared_ptr<const MappedFile> file;
  std::vector<std::byte> copy;
};

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile f;
  f.path_ = path;
  f.storage_ = std::make_unique<Storage>();
  try {
    f.storage_->file = MappedFile::open(path);
  } catch (const std::runtime_error& e) {
    throw ModelFormatError(path, "", e.what());
  }
  f.bytes_ = {reinterpret_cast<const std::byte*>(f.storage_->file->data()),
              f.storage_->file->size()};
  f.parse();
  return f;
}

SafetensorsFile SafetensorsFile::from_bytes(std::span<const std::byte> bytes, std::string label) {
  SafetensorsFile f;
  f.path_ = std::move(label);
  f.storage_ = std::make_unique<Storage>();
  f.storage_->copy.assign(bytes.begin(), bytes.end());
  f.bytes_ = f.storage_->copy;
  f.parse();
  return f;
}

void SafetensorsFile::parse() {
  using nlohmann::json;
  const uint64_t file_size = bytes_.size();
  if (file_size < 8) {
    throw ModelFormatError(path_, "",
                           "file of " + std::to_string(file_size) +
                               " bytes is too short for the 8-byte header length");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes_[i]);
  if (n > kMaxHeaderBytes) {
    throw ModelFormatError(path_, "",
                           "header length " + std::to_string(n) + " exceeds the " +
                               std::to_string(kMaxHeaderBytes) + "-byte limit");
  }
  if (n > file_size - 8) {
    throw ModelFormatError(path_, "",
                           "header length " + std::to_string(n) + " runs past the end of the " +
                               std::to_string(file_size) + "-byte file (truncated?)");
  }
  data_start_ = 8 + n;
  const uint64_t data_size = file_size - data_start_;
  const char* text = reinterpret_cast<const char*>(bytes_.data() + 8);
  json header;
  try {
    header = json::parse(text, text + n);
  } catch (const json::exception& e) {
    throw ModelFormatError(path_, "", std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw ModelFormatError(path_, "", "header is not a JSON object");

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) throw ModelFormatError(path_, name, "is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) {
          throw ModelFormatError(path_, name, "value of \"" + m.key() + "\" is not a string");
        }
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) throw ModelFormatError(path_, name, "tensor entry is not an object");
    auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) {
      throw ModelFormatError(path_, name, "missing or non-string \"dtype\"");
    }
    std::optional<SafetensorsDType> dtype =
        parse_safetensors_dtype(dt->get_ref<const std::string&>());
    if (!dtype) {
      throw ModelFormatError(path_, name, "unknown dtype \"" + dt->get<std::string>() + "\"");
    }
    SafetensorsTensor t;
    t.name = name;
    t.dtype = *dtype;
    auto sh = v.find("shape");
    if (sh == v.end() || !sh->is_array()) {
      throw ModelFormatError(path_, name, "missing or non-array \"shape\"");
    }
    uint64_t numel = 1;
    for (const json& d : *sh) {
      if (!d.is_number_unsigned()) {
        throw ModelFormatError(path_, name,
                               "shape entry " + d.dump() + " is not a non-negative integer");
      }
      uint64_t dim = d.get<uint64_t>();
      if (dim > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, dim, &numel)) {
        throw ModelFormatError(path_, name, "shape " + sh->dump() + " overflows");
      }
      t.shape.push_back(static_cast<int64_t>(dim));
    }
    t.num_elements = numel;
    if (__builtin_mul_overflow(numel, safetensors_dtype_size(t.dtype), &t.size)) {
      throw ModelFormatError(path_, name, "shape " + sh->dump() + " overflows");
    }
    auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned()) {
      throw ModelFormatError(path_, name,
                             "\"data_offsets\" is not [begin, end] of non-negative integers");
    }
    uint64_t begin = (*off)[0].get<uint64_t>(), end = (*off)[1].get<uint64_t>();
    if (begin > end) {
      throw ModelFormatError(path_, name, "data_offsets " + off->dump() + " begin after end");
    }
    if (end > data_size) {
      throw ModelFormatError(path_, name,
                             "data_offsets " + off->dump() + " run past the " +
                                 std::to_string(data_size) + "-byte data section (truncated?)");
    }
    if (end - begin != t.size) {
      throw ModelFormatError(path_, name,
                             "data_offsets " + off->dump() + " hold " +
                                 std::to_string(end - begin) + " bytes but " +
                                 safetensors_dtype_name(t.dtype) + " " + sh->dump() + " needs " +
                                 std::to_string(t.size));
    }
    t.offset = begin;
    tensors_.push_back(std::move(t));
  }

  // The tensors must tile the data section exactly: no overlap, no hole, nothing left over.
  std::vector<const SafetensorsTensor*> by_offset;
  for (const SafetensorsTensor& t : tensors_) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const auto* a, const auto* b) {
    return a->offset != b->offset ? a->offset < b->offset : a->size < b->size;
  });
  uint64_t expected = 0;
  const SafetensorsTensor* prev = nullptr;
  for (const SafetensorsTensor* t : by_offset) {
    if (t->offset < expected) {
      throw ModelFormatError(path_, t->name, "data overlaps tensor \"" + prev->name + "\"");
    }
    if (t->offset > expected) {
      throw ModelFormatError(
          path_, t->name,
          "hole of " + std::to_string(t->offset - expected) + " bytes before its data");
    }
    expected = t->offset + t->size;
    prev = t;
  }
  if (expected != data_size) {
    throw ModelFormatError(
        path_, "",
        std::to_string(data_size - expected) + " bytes after the last tensor are not indexed");
  }
  std::sort(tensors_.begin(), tensors_.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
  auto it =
      std::lower_bound(tensors_.begin(), tensors_.end(), name,
                       [](const SafetensorsTensor& t, std::string_view n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

const SafetensorsTensor& SafetensorsFile::at(std::string_view name) const {
  const SafetensorsTensor* t = find(name);
  if (t == nullptr) throw ModelFormatError(path_, std::string(name), "tensor not found");
  return *t;
}

std::span<const std::byte> SafetensorsFile::data(const SafetensorsTensor& tensor) const {
  return bytes_.subspan(data_start_ + tensor.offset, tensor.size);
}

// ---- ShardedSafetensors ----

ShardedSafetensors ShardedSafetensors::open(const std::string& index_path) {
  using nlohmann::json;
  ShardedSafetensors s;
  s.index_path_ = index_path;
  std::ifstream in(index_path, std::ios::binary);
  if (!in) throw ModelFormatError(index_path, "", "cannot open: " + errno_text());
  json index;
  try {
    index = json::parse(in);
  } catch (const json::exception& e) {
    throw ModelFormatError(index_path, "", std::string("not valid JSON: ") + e.what());
  }
  if (!index.is_object()) throw ModelFormatError(index_path, "", "not a JSON object");
  auto wm = index.find("weight_map");
  if (wm == index.end() || !wm->is_object()) {
    throw ModelFormatError(index_path, "weight_map", "missing or not an object");
  }
  std::string dir;
  if (size_t slash = index_path.rfind('/'); slash != std::string::npos) {
    dir = index_path.substr(0, slash + 1);
  }
  std::map<std::string, size_t> shard_index;  // shard file name -> index into shards_
  std::map<std::string, std::string> placed;  // tensor -> shard file name
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it.value().is_string()) {
      throw ModelFormatError(index_path, "weight_map." + it.key(), "shard name is not a string");
    }
    const std::string& shard = it.value().get_ref<const std::string&>();
    if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos ||
        shard.find('\0') != std::string::npos) {
      throw ModelFormatError(index_path, "weight_map." + it.key(),
                             "shard \"" + shard + "\" is not a plain file name");
    }
    shard_index.emplace(shard, 0);
    placed[it.key()] = shard;
  }
  for (auto& [shard, idx] : shard_index) {
    idx = s.shards_.size();
    s.shards_.push_back(SafetensorsFile::open(dir + shard));
  }
  for (const auto& [tensor, shard] : placed) {
    size_t idx = shard_index.at(shard);
    if (s.shards_[idx].find(tensor) == nullptr) {
      throw ModelFormatError(index_path, tensor,
                             "weight_map places it in " + shard + ", which does not hold it");
    }
    s.shard_of_.emplace(tensor, idx);
  }
  for (const auto& [shard, idx] : shard_index) {
    for (const SafetensorsTensor& t : s.shards_[idx].tensors()) {
      auto p = placed.find(t.name);
      if (p != placed.end() && p->second != shard) {
        throw ModelFormatError(index_path, t.name,
                               "in shard " + shard + " but weight_map places it in " + p->second);
      }
    }
  }
  return s;
}

std::vector<std::string> ShardedSafetensors::tensor_names() const {
  std::vector<std::string> names;
  for (const auto& [name, idx] : shard_of_) names.push_back(name);
  return names;
}

std::optional<ShardedSafetensors::Ref> ShardedSafetensors::find(std::string_view name) const {
  auto it = shard_of_.find(name);
  if (it == shard_of_.end()) return std::nullopt;
  const SafetensorsFile& f = shards_[it->second];
  return Ref{&f, f.find(name)};
}

ShardedSafetensors::Ref ShardedSafetensors::at(std::string_view name) const {
  std::optional<Ref> r = find(name);
  if (!r) throw ModelFormatError(index_path_, std::string(name), "tensor not in weight_map");
  return *r;
}

}  // namespace llm
