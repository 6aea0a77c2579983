#include "backends/formats/gguf_value.h"

#include <limits>
#include <sstream>

namespace llm {

GgufValue GgufValue::from_u64(GgufType type, uint64_t v) {
  GgufValue out;
  out.type_ = type;
  out.bits_ = v;
  return out;
}

GgufValue GgufValue::from_i64(GgufType type, int64_t v) {
  GgufValue out;
  out.type_ = type;
  out.bits_ = static_cast<uint64_t>(v);
  out.negative_ = v < 0;
  return out;
}

GgufValue GgufValue::from_f64(GgufType type, double v) {
  GgufValue out;
  out.type_ = type;
  out.f_ = v;
  return out;
}

GgufValue GgufValue::from_bool(bool v) {
  GgufValue out;
  out.type_ = GgufType::kBool;
  out.bits_ = v ? 1 : 0;
  return out;
}

GgufValue GgufValue::from_string(std::string v) {
  GgufValue out;
  out.type_ = GgufType::kString;
  out.str_ = std::move(v);
  return out;
}

GgufValue GgufValue::from_array(GgufType elem_type, std::vector<GgufValue> items) {
  GgufValue out;
  out.type_ = GgufType::kArray;
  out.elem_type_ = elem_type;
  out.items_ = std::move(items);
  return out;
}

std::optional<int64_t> GgufValue::as_i64() const {
  if (!is_integer()) return std::nullopt;
  if (negative_) return static_cast<int64_t>(bits_);
  if (bits_ > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(bits_);
}

std::optional<uint64_t> GgufValue::as_u64() const {
  if (!is_integer() || negative_) return std::nullopt;
  return bits_;
}

std::optional<double> GgufValue::as_f64() const {
  if (is_float()) return f_;
  if (!is_integer()) return std::nullopt;
  return negative_ ? static_cast<double>(static_cast<int64_t>(bits_)) : static_cast<double>(bits_);
}

std::optional<bool> GgufValue::as_bool() const {
  if (type_ != GgufType::kBool) return std::nullopt;
  return bits_ != 0;
}

const std::string* GgufValue::as_string() const {
  return type_ == GgufType::kString ? &str_ : nullptr;
}

const std::vector<GgufValue>* GgufValue::as_array() const {
  return type_ == GgufType::kArray ? &items_ : nullptr;
}

std::string GgufValue::to_debug_string(size_t max_items) const {
  std::ostringstream os;
  if (type_ == GgufType::kString) {
    os << '"' << str_ << '"';
  } else if (type_ == GgufType::kArray) {
    os << "[" << gguf_type_name(elem_type_) << " x " << items_.size() << ":";
    for (size_t i = 0; i < items_.size() && i < max_items; ++i) {
      os << (i ? ", " : " ") << items_[i].to_debug_string(max_items);
    }
    if (items_.size() > max_items) os << ", ...";
    os << "]";
  } else if (type_ == GgufType::kBool) {
    os << (bits_ ? "true" : "false");
  } else if (is_float()) {
    os << f_;
  } else if (negative_) {
    os << static_cast<int64_t>(bits_);
  } else {
    os << bits_;
  }
  return os.str();
}

bool GgufValue::operator==(const GgufValue& other) const {
  if (type_ != other.type_) return false;
  if (type_ == GgufType::kArray) return elem_type_ == other.elem_type_ && items_ == other.items_;
  if (type_ == GgufType::kString) return str_ == other.str_;
  if (is_float()) return f_ == other.f_ || (f_ != f_ && other.f_ != other.f_);
  return bits_ == other.bits_ && negative_ == other.negative_;
}

}  // namespace llm
