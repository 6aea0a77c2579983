#include "backends/formats/gguf_reader.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/formats/mapped_file.h"

namespace llm {

namespace {

constexpr uint32_t kMaxDims = 4;   // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 8;  // nested arrays deeper than this are rejected
constexpr uint64_t kMaxAlignment = 1 << 20;

}  // namespace

GgufError::GgufError(std::string file, uint64_t offset, const std::string& what)
    : ModelFormatError(file, "", "GGUF error at byte " + std::to_string(offset) + ": " + what),
      offset_(offset) {}

// Bounds-checked little-endian cursor over the file bytes.
class GgufParser {
 public:
  GgufParser(GgufFile& out, const uint8_t* data, uint64_t size)
      : out_(out), data_(data), size_(size) {}

  void run() {
    if (size_ < 4 || std::memcmp(data_, "GGUF", 4) != 0) {
      fail(0, size_ < 4 ? "truncated: file shorter than the 4-byte magic"
                        : "bad magic (not a GGUF file)");
    }
    pos_ = 4;
    const uint32_t version = u32("version");
    if (version != 2 && version != 3) {
      fail(4, "unsupported GGUF version " + std::to_string(version) + " (supported: 2, 3)");
    }
    out_.version_ = version;
    const uint64_t n_tensors = u64("tensor count");
    const uint64_t n_kv = u64("metadata count");
    // Each KV needs at least 8 (key length) + 4 (type) + 1 bytes; each tensor info at least
    // 8+4+4+8.
    if (n_kv > remaining() / 13) {
      fail(16, "truncated: metadata count " + std::to_string(n_kv) + " does not fit in the " +
                   std::to_string(remaining()) + " bytes left");
    }
    out_.kv_.reserve(n_kv);
    for (uint64_t i = 0; i < n_kv; ++i) read_kv();
    if (n_tensors > remaining() / 24) {
      fail(8, "truncated: tensor count " + std::to_string(n_tensors) + " does not fit in the " +
                  std::to_string(remaining()) + " bytes left");
    }
    if (const GgufValue* a = out_.find("general.alignment")) {
      const auto v = a->as_u64();
      if (!v || *v == 0 || (*v & (*v - 1)) != 0 || *v > kMaxAlignment) {
        fail(0, "general.alignment must be a power of two <= 2^20, got " + a->to_debug_string());
      }
      out_.alignment_ = static_cast<uint32_t>(*v);
    }
    out_.tensors_.reserve(n_tensors);
    for (uint64_t i = 0; i < n_tensors; ++i) read_tensor_info();
    // The data section starts at the next multiple of the alignment.
    const uint64_t align = out_.alignment_;
    uint64_t data_start = (pos_ + align - 1) / align * align;
    if (n_tensors == 0 && data_start > size_) data_start = size_;  // no data needed
    if (data_start > size_) fail(pos_, "truncated: data section starts past the end of the file");
    out_.data_offset_ = data_start;
    const uint64_t data_size = size_ - data_start;
    for (auto& t : out_.tensors_) {
      if (t.offset % align != 0) {
        fail(data_start, "tensor '" + t.name + "' offset " + std::to_string(t.offset) +
                             " is not a multiple of the alignment " + std::to_string(align));
      }
      if (t.offset > data_size || t.n_bytes > data_size - t.offset) {
        fail(data_start + std::min(t.offset, data_size),
             "tensor '" + t.name + "' data (offset " + std::to_string(t.offset) + ", " +
                 std::to_string(t.n_bytes) + " bytes) extends past the end of the file");
      }
      t.data = data_ + data_start + t.offset;
    }
  }

 private:
  [[noreturn]] void fail(uint64_t offset, const std::string& what) const {
    throw GgufError(out_.name_, offset, what);
  }
  uint64_t remaining() const { return size_ - pos_; }
  void need(uint64_t n, const char* what) const {
    if (n > remaining()) {
      fail(pos_, std::string("truncated: reading ") + what + " needs " + std::to_string(n) +
                     " bytes, " + std::to_string(remaining()) + " left");
    }
  }
  template <typename T>
  T scalar(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));  // the format is little-endian, as is the host
    pos_ += sizeof(T);
    return v;
  }
  uint32_t u32(const char* what) { return scalar<uint32_t>(what); }
  uint64_t u64(const char* what) { return scalar<uint64_t>(what); }

  std::string str(const char* what) {
    const uint64_t at = pos_;
    const uint64_t len = u64(what);
    if (len > remaining()) {
      fail(at, std::string("truncated: ") + what + " length " + std::to_string(len) + " but " +
                   std::to_string(remaining()) + " bytes left");
    }
    std::string s(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len;
    return s;
  }

  GgufType type_code(const char* what) {
    const uint64_t at = pos_;
    const uint32_t code = u32(what);
    if (!gguf_type_known(code)) fail(at, "unknown value type " + std::to_string(code));
    return static_cast<GgufType>(code);
  }

  GgufValue value(GgufType type, int depth) {
    switch (type) {
      case GgufType::kUint8:
        return GgufValue::from_u64(type, scalar<uint8_t>("UINT8"));
      case GgufType::kInt8:
        return GgufValue::from_i64(type, scalar<int8_t>("INT8"));
      case GgufType::kUint16:
        return GgufValue::from_u64(type, scalar<uint16_t>("UINT16"));
      case GgufType::kInt16:
        return GgufValue::from_i64(type, scalar<int16_t>("INT16"));
      case GgufType::kUint32:
        return GgufValue::from_u64(type, scalar<uint32_t>("UINT32"));
      case GgufType::kInt32:
        return GgufValue::from_i64(type, scalar<int32_t>("INT32"));
      case GgufType::kUint64:
        return GgufValue::from_u64(type, scalar<uint64_t>("UINT64"));
      case GgufType::kInt64:
        return GgufValue::from_i64(type, scalar<int64_t>("INT64"));
      case GgufType::kFloat32:
        return GgufValue::from_f64(type, scalar<float>("FLOAT32"));
      case GgufType::kFloat64:
        return GgufValue::from_f64(type, scalar<double>("FLOAT64"));
      case GgufType::kBool: {
        const uint64_t at = pos_;
        const uint8_t b = scalar<uint8_t>("BOOL");
        if (b > 1) fail(at, "invalid BOOL value " + std::to_string(b));
        return GgufValue::from_bool(b != 0);
      }
      case GgufType::kString:
        return GgufValue::from_string(str("string value"));
      case GgufType::kArray:
        return array(depth);
    }
    fail(pos_, "unknown value type");
  }

  GgufValue array(int depth) {
    const uint64_t at = pos_;
    if (depth >= kMaxArrayDepth)
      fail(at, "arrays nested deeper than " + std::to_string(kMaxArrayDepth));
    const GgufType elem = type_code("array element type");
    const uint64_t count = u64("array length");
    // Smallest encoding of one element: scalar size, 8 for a string, 12 for an array.
    uint64_t min_elem = gguf_scalar_size(elem);
    if (elem == GgufType::kString) min_elem = 8;
    if (elem == GgufType::kArray) min_elem = 12;
    if (count > remaining() / min_elem) {
      fail(at, "truncated: array of " + std::to_string(count) + " " + gguf_type_name(elem) +
                   " does not fit in the " + std::to_string(remaining()) + " bytes left");
    }
    std::vector<GgufValue> items;
    items.reserve(count);
    for (uint64_t i = 0; i < count; ++i) items.push_back(value(elem, depth + 1));
    return GgufValue::from_array(elem, std::move(items));
  }

  void read_kv() {
    const uint64_t at = pos_;
    std::string key = str("metadata key");
    const GgufType type = type_code("metadata value type");
    GgufValue v = value(type, 0);
    if (out_.kv_index_.count(key)) fail(at, "duplicate metadata key '" + key + "'");
    out_.kv_index_.emplace(key, out_.kv_.size());
    out_.kv_offsets_.push_back(at);
    out_.kv_.emplace_back(std::move(key), std::move(v));
  }

  void read_tensor_info() {
    const uint64_t at = pos_;
    GgufTensorInfo t;
    t.name = str("tensor name");
    const uint32_t n_dims = u32("tensor dimension count");
    if (n_dims == 0 || n_dims > kMaxDims) {
      fail(at, "tensor '" + t.name + "' has " + std::to_string(n_dims) + " dimensions (1..4)");
    }
    uint64_t n = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t dim = u64("tensor dimension");
      if (dim != 0 && n > std::numeric_limits<uint64_t>::max() / dim) {
        fail(at, "tensor '" + t.name + "' element count overflows");
      }
      n *= dim;
      t.dims.push_back(dim);
    }
    const uint64_t type_at = pos_;
    const uint32_t type = u32("tensor type");
    const auto traits = ggml_type_traits(type);
    if (!traits)
      fail(type_at, "tensor '" + t.name + "' has unsupported ggml type " + std::to_string(type));
    t.type = static_cast<GgmlType>(type);
    if (t.dims[0] % traits->block_elems != 0) {
      fail(at, "tensor '" + t.name + "' first dimension " + std::to_string(t.dims[0]) +
                   " is not a multiple of the " + traits->name + " block size");
    }
    const uint64_t blocks = n / traits->block_elems;
    if (blocks > size_ / traits->block_bytes + 1) {
      fail(at, "tensor '" + t.name + "' is larger than the file");
    }
    t.n_elements = n;
    t.n_bytes = blocks * traits->block_bytes;
    t.offset = u64("tensor offset");
    if (out_.tensor_index_.count(t.name)) fail(at, "duplicate tensor name '" + t.name + "'");
    out_.tensor_index_.emplace(t.name, out_.tensors_.size());
    out_.tensors_.push_back(std::move(t));
  }

  GgufFile& out_;
  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

GgufFile GgufFile::open(const std::string& path) {
  GgufFile f;
  f.name_ = path;
  try {
    f.mapped_ = MappedFile::open(path);
  } catch (const std::runtime_error& e) {
    throw GgufError(path, 0, e.what());
  }
  f.size_ = f.mapped_->size();
  GgufParser(f, f.mapped_->data(), f.size_).run();
  return f;
}

GgufFile GgufFile::parse(std::vector<uint8_t> bytes, const std::string& name) {
  GgufFile f;
  f.name_ = name;
  f.owned_ = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  f.size_ = f.owned_->size();
  GgufParser(f, f.owned_->data(), f.size_).run();
  return f;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  const auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].second;
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
  const auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

void GgufFile::key_error(std::string_view key, const std::string& what) const {
  const auto it = kv_index_.find(key);
  const uint64_t at = it == kv_index_.end() ? 0 : kv_offsets_[it->second];
  throw GgufError(name_, at, "metadata '" + std::string(key) + "': " + what);
}

namespace {

const GgufValue& require(const GgufFile& f, std::string_view key) {
  const GgufValue* v = f.find(key);
  if (!v) throw GgufError(f.name(), 0, "metadata '" + std::string(key) + "' is missing");
  return *v;
}

}  // namespace

std::string GgufFile::get_string(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  if (!v.as_string()) key_error(key, "expected STRING, found " + gguf_type_name(v.type()));
  return *v.as_string();
}

uint32_t GgufFile::get_u32(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  const auto u = v.as_u64();
  if (!u || *u > std::numeric_limits<uint32_t>::max()) {
    key_error(key, "expected an unsigned 32-bit integer, found " + gguf_type_name(v.type()) + " " +
                       v.to_debug_string());
  }
  return static_cast<uint32_t>(*u);
}

int64_t GgufFile::get_i64(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  const auto i = v.as_i64();
  if (!i) key_error(key, "expected an integer, found " + gguf_type_name(v.type()));
  return *i;
}

float GgufFile::get_f32(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  const auto d = v.as_f64();
  if (!d) key_error(key, "expected a number, found " + gguf_type_name(v.type()));
  return static_cast<float>(*d);
}

bool GgufFile::get_bool(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  const auto b = v.as_bool();
  if (!b) key_error(key, "expected BOOL, found " + gguf_type_name(v.type()));
  return *b;
}

const std::vector<GgufValue>& GgufFile::get_array(std::string_view key) const {
  const GgufValue& v = require(*this, key);
  if (!v.as_array()) key_error(key, "expected ARRAY, found " + gguf_type_name(v.type()));
  return *v.as_array();
}

std::vector<std::string> GgufFile::get_string_array(std::string_view key) const {
  const auto& items = get_array(key);
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    if (!item.as_string()) key_error(key, "expected an array of STRING");
    out.push_back(*item.as_string());
  }
  return out;
}

std::vector<float> GgufFile::get_f32_array(std::string_view key) const {
  const auto& items = get_array(key);
  std::vector<float> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    const auto d = item.as_f64();
    if (!d) key_error(key, "expected an array of numbers");
    out.push_back(static_cast<float>(*d));
  }
  return out;
}

std::vector<int64_t> GgufFile::get_int_array(std::string_view key) const {
  const auto& items = get_array(key);
  std::vector<int64_t> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    const auto i = item.as_i64();
    if (!i) key_error(key, "expected an array of integers");
    out.push_back(*i);
  }
  return out;
}

std::optional<std::string> GgufFile::find_string(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return get_string(key);
}

std::optional<uint32_t> GgufFile::find_u32(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return get_u32(key);
}

std::optional<float> GgufFile::find_f32(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return get_f32(key);
}

std::optional<bool> GgufFile::find_bool(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return get_bool(key);
}

}  // namespace llm
