#include "server/api/json_text.h"

namespace llm {

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dump_json(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string json_string_literal(std::string_view text) {
  return dump_json(nlohmann::json(std::string(text)));
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0 when it is ill-formed.
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMinOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinOfLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Marks an ill-formed byte in the copy that invalid_utf8_field parses: U+FDD0, a noncharacter
// that no client has a reason to send.
constexpr std::string_view kMark = "\xEF\xB7\x90";

std::optional<std::string> find_marked(const nlohmann::json& j, const std::string& path) {
  const auto marked = [](const std::string& s) { return s.find(kMark) != std::string::npos; };
  if (j.is_string()) {
    if (marked(j.get_ref<const std::string&>())) return path;
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (auto p = find_marked(j[i], path + "[" + std::to_string(i) + "]")) return p;
    }
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (marked(key)) return child;
      if (auto p = find_marked(value, child)) return p;
    }
  }
  return std::nullopt;
}

}  // namespace

size_t first_invalid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_sequence_length(text, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::optional<std::string> invalid_utf8_field(std::string_view json_text) {
  if (is_valid_utf8(json_text)) return std::nullopt;
  std::string marked;
  marked.reserve(json_text.size() + 16);
  for (size_t i = 0; i < json_text.size();) {
    const size_t len = utf8_sequence_length(json_text, i);
    if (len == 0) {
      marked += kMark;
      ++i;
    } else {
      marked.append(json_text.substr(i, len));
      i += len;
    }
  }
  const nlohmann::json j = nlohmann::json::parse(marked, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::string();
  return find_marked(j, "").value_or("");
}

}  // namespace llm
