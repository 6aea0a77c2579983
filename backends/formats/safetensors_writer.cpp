// Safetensors writer (see safetensors_writer.h).
#include "backends/formats/safetensors_writer.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/pending_file.h"

namespace llm {
namespace {

void require_utf8(const std::string& s, const char* what) {
  try {
    (void)nlohmann::json(s).dump();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string(what) + " is not valid UTF-8");
  }
}

}  // namespace

void SafetensorsWriter::set_metadata(std::string key, std::string value) {
  require_utf8(key, "metadata key");
  require_utf8(value, "metadata value");
  metadata_[std::move(key)] = std::move(value);
}

void SafetensorsWriter::add(std::string name, SafetensorsDType dtype, std::vector<int64_t> shape,
                            std::span<const std::byte> bytes) {
  if (name == "__metadata__") throw std::invalid_argument("reserved tensor name __metadata__");
  require_utf8(name, "tensor name");
  for (const Entry& e : entries_) {
    if (e.name == name) throw std::invalid_argument("duplicate tensor name " + name);
  }
  uint64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument(name + ": negative dimension");
    numel *= static_cast<uint64_t>(d);
  }
  if (numel * safetensors_dtype_size(dtype) != bytes.size()) {
    throw std::invalid_argument(name + ": " + std::to_string(bytes.size()) +
                                " bytes do not match its shape and dtype");
  }
  entries_.push_back({std::move(name), dtype, std::move(shape), {bytes.begin(), bytes.end()}});
}

void SafetensorsWriter::add_f32(std::string name, std::vector<int64_t> shape,
                                std::span<const float> values) {
  add(std::move(name), SafetensorsDType::kF32, std::move(shape), std::as_bytes(values));
}

std::vector<std::byte> SafetensorsWriter::serialize() const {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  uint64_t offset = 0;
  for (const Entry& e : entries_) {
    header[e.name] = {{"dtype", safetensors_dtype_name(e.dtype)},
                      {"shape", e.shape},
                      {"data_offsets", {offset, offset + e.bytes.size()}}};
    offset += e.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::byte> out;
  out.reserve(8 + text.size() + offset);
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xff));
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  for (const Entry& e : entries_) out.insert(out.end(), e.bytes.begin(), e.bytes.end());
  return out;
}

void SafetensorsWriter::write(const std::string& path) const {
  const std::vector<std::byte> bytes = serialize();
  write_file_atomically(path, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

}  // namespace llm
