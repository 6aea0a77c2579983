#include "backends/formats/gguf_writer.h"

#include <cstring>
#include <stdexcept>
#include <string_view>

#include "core/pending_file.h"

namespace llm {

namespace {

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  uint8_t buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // little-endian host
  out.insert(out.end(), buf, buf + sizeof(T));
}

void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void put_value(std::vector<uint8_t>& out, const GgufValue& v) {
  switch (v.type()) {
    case GgufType::kUint8:
      put<uint8_t>(out, static_cast<uint8_t>(*v.as_u64()));
      break;
    case GgufType::kInt8:
      put<int8_t>(out, static_cast<int8_t>(*v.as_i64()));
      break;
    case GgufType::kUint16:
      put<uint16_t>(out, static_cast<uint16_t>(*v.as_u64()));
      break;
    case GgufType::kInt16:
      put<int16_t>(out, static_cast<int16_t>(*v.as_i64()));
      break;
    case GgufType::kUint32:
      put<uint32_t>(out, static_cast<uint32_t>(*v.as_u64()));
      break;
    case GgufType::kInt32:
      put<int32_t>(out, static_cast<int32_t>(*v.as_i64()));
      break;
    case GgufType::kUint64:
      put<uint64_t>(out, *v.as_u64());
      break;
    case GgufType::kInt64:
      put<int64_t>(out, *v.as_i64());
      break;
    case GgufType::kFloat32:
      put<float>(out, static_cast<float>(*v.as_f64()));
      break;
    case GgufType::kFloat64:
      put<double>(out, *v.as_f64());
      break;
    case GgufType::kBool:
      put<uint8_t>(out, *v.as_bool() ? 1 : 0);
      break;
    case GgufType::kString:
      put_string(out, *v.as_string());
      break;
    case GgufType::kArray: {
      put<uint32_t>(out, static_cast<uint32_t>(v.elem_type()));
      put<uint64_t>(out, v.as_array()->size());
      for (const auto& item : *v.as_array()) put_value(out, item);
      break;
    }
  }
}

void pad_to(std::vector<uint8_t>& out, uint64_t alignment) {
  while (out.size() % alignment != 0) out.push_back(0);
}

}  // namespace

void GgufWriter::set(const std::string& key, GgufValue value) {
  for (auto& kv : kv_) {
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  }
  kv_.emplace_back(key, std::move(value));
}

void GgufWriter::set_string(const std::string& key, std::string v) {
  set(key, GgufValue::from_string(std::move(v)));
}
void GgufWriter::set_u32(const std::string& key, uint32_t v) {
  set(key, GgufValue::from_u64(GgufType::kUint32, v));
}
void GgufWriter::set_i32(const std::string& key, int32_t v) {
  set(key, GgufValue::from_i64(GgufType::kInt32, v));
}
void GgufWriter::set_f32(const std::string& key, float v) {
  set(key, GgufValue::from_f64(GgufType::kFloat32, v));
}
void GgufWriter::set_bool(const std::string& key, bool v) { set(key, GgufValue::from_bool(v)); }

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string>& v) {
  std::vector<GgufValue> items;
  items.reserve(v.size());
  for (const auto& s : v) items.push_back(GgufValue::from_string(s));
  set(key, GgufValue::from_array(GgufType::kString, std::move(items)));
}

void GgufWriter::set_f32_array(const std::string& key, const std::vector<float>& v) {
  std::vector<GgufValue> items;
  items.reserve(v.size());
  for (float f : v) items.push_back(GgufValue::from_f64(GgufType::kFloat32, f));
  set(key, GgufValue::from_array(GgufType::kFloat32, std::move(items)));
}

void GgufWriter::set_i32_array(const std::string& key, const std::vector<int32_t>& v) {
  std::vector<GgufValue> items;
  items.reserve(v.size());
  for (int32_t i : v) items.push_back(GgufValue::from_i64(GgufType::kInt32, i));
  set(key, GgufValue::from_array(GgufType::kInt32, std::move(items)));
}

void GgufWriter::set_alignment(uint32_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw std::invalid_argument("GGUF alignment must be a power of two");
  }
  alignment_ = alignment;
  set_u32("general.alignment", alignment);
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<uint64_t>& dims,
                            GgmlType type, std::vector<uint8_t> data) {
  const auto traits = ggml_type_traits(static_cast<uint32_t>(type));
  if (!traits) throw std::invalid_argument("unsupported ggml type for tensor " + name);
  if (dims.empty() || dims.size() > 4)
    throw std::invalid_argument("tensor " + name + ": 1..4 dims");
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  if (dims[0] % traits->block_elems != 0 ||
      n / traits->block_elems * traits->block_bytes != data.size()) {
    throw std::invalid_argument("tensor " + name + ": data size does not match type and dims");
  }
  tensors_.push_back(Tensor{name, dims, type, std::move(data)});
}

std::vector<uint8_t> GgufWriter::to_bytes() const {
  std::vector<uint8_t> out;
  out.reserve(4096);
  for (char c : std::string_view("GGUF")) out.push_back(static_cast<uint8_t>(c));
  put<uint32_t>(out, version_);
  put<uint64_t>(out, tensors_.size());
  put<uint64_t>(out, kv_.size());
  for (const auto& [key, value] : kv_) {
    put_string(out, key);
    put<uint32_t>(out, static_cast<uint32_t>(value.type()));
    put_value(out, value);
  }
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) put<uint64_t>(out, d);
    put<uint32_t>(out, static_cast<uint32_t>(t.type));
    put<uint64_t>(out, offset);
    offset += (t.data.size() + alignment_ - 1) / alignment_ * alignment_;
  }
  if (!tensors_.empty()) pad_to(out, alignment_);
  for (const auto& t : tensors_) {
    out.insert(out.end(), t.data.begin(), t.data.end());
    pad_to(out, alignment_);
  }
  return out;
}

void GgufWriter::write_file(const std::string& path) const {
  const std::vector<uint8_t> bytes = to_bytes();
  write_file_atomically(path, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

}  // namespace llm
