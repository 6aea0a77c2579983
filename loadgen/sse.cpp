#include "loadgen/sse.h"

#include <nlohmann/json.hpp>

namespace llm::loadgen {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

int64_t parse_int_at(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return -1;
  int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && v < (int64_t{1} << 58)) {
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  return v;
}

// Is there a non-empty string value for any member named key?
bool has_nonempty_string(std::string_view json, std::string_view key) {
  size_t from = 0;
  while (true) {
    const size_t v = find_member_value(json, key, from);
    if (v == std::string_view::npos) return false;
    if (v + 1 < json.size() && json[v] == '"' && json[v + 1] != '"') return true;
    from = v;
  }
}

std::string shorten(std::string_view s) {
  constexpr size_t kMax = 300;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
}

}  // namespace

size_t find_member_value(std::string_view json, std::string_view key, size_t from) {
  while (true) {
    size_t k = json.find(key, from);
    if (k == std::string_view::npos) return k;
    from = k + 1;
    // The key must be quoted: "key"
    if (k == 0 || json[k - 1] != '"') continue;
    size_t i = k + key.size();
    if (i >= json.size() || json[i] != '"') continue;
    i = skip_space(json, i + 1);
    if (i >= json.size() || json[i] != ':') continue;
    return skip_space(json, i + 1);
  }
}

ChunkInfo scan_chunk(std::string_view json) {
  ChunkInfo info;
  info.has_content = has_nonempty_string(json, "text") || has_nonempty_string(json, "content");
  if (size_t u = find_member_value(json, "usage"); u != std::string_view::npos && u < json.size() &&
                                                    json[u] == '{') {
    info.has_usage = true;
    const size_t end = json.find('}', u);
    const std::string_view usage = json.substr(u, end == std::string_view::npos ? json.npos : end - u);
    if (size_t p = find_member_value(usage, "prompt_tokens"); p != std::string_view::npos)
      info.prompt_tokens = parse_int_at(usage, p);
    if (size_t c = find_member_value(usage, "completion_tokens"); c != std::string_view::npos)
      info.completion_tokens = parse_int_at(usage, c);
  }
  if (size_t e = find_member_value(json, "error"); e != std::string_view::npos && e < json.size() &&
                                                   json[e] != 'n') {  // "error": null is no error
    info.is_error = true;
  }
  if (size_t o = find_member_value(json, "object"); o != std::string_view::npos &&
                                                    json.substr(o, 7) == "\"error\"") {
    info.is_error = true;
  }
  return info;
}

std::string error_message(std::string_view json) {
  const auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    if (auto it = doc.find("error"); it != doc.end()) {
      if (it->is_string()) return shorten(it->get<std::string>());
      if (it->is_object()) {
        if (auto m = it->find("message"); m != it->end() && m->is_string())
          return shorten(m->get<std::string>());
      }
    }
    if (auto m = doc.find("message"); m != doc.end() && m->is_string())
      return shorten(m->get<std::string>());
    if (auto m = doc.find("detail"); m != doc.end()) {
      return shorten(m->is_string() ? m->get<std::string>() : m->dump());
    }
  }
  return shorten(json);
}

}  // namespace llm::loadgen
