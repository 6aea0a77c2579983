#include "server/api/json_fields.h"

#include <nlohmann/json.hpp>

#include "server/api/api_error.h"

namespace llm {
namespace {
using json = nlohmann::json;
}  // namespace

bool optional_bool(const json& body, const char* key, bool fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw_bad_request(key, std::string("'") + key + "' must be a boolean");
  return it->get<bool>();
}

std::optional<int64_t> optional_int(const json& body, const char* key, int64_t min_value,
                                    int64_t max_value) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer())
    throw_bad_request(key, std::string("'") + key + "' must be an integer");
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(max_value)) {
    throw_bad_request(key, std::string("'") + key + "' must be at most " +
                               std::to_string(max_value) + ", got " +
                               std::to_string(it->get<uint64_t>()));
  }
  const int64_t v = it->get<int64_t>();
  if (v < min_value) {
    throw_bad_request(key, std::string("'") + key + "' must be at least " +
                               std::to_string(min_value) + ", got " + std::to_string(v));
  }
  if (v > max_value) {
    throw_bad_request(key, std::string("'") + key + "' must be at most " +
                               std::to_string(max_value) + ", got " + std::to_string(v));
  }
  return v;
}

double optional_number(const json& body, const char* key, double fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw_bad_request(key, std::string("'") + key + "' must be a number");
  return it->get<double>();
}

// obj[key] when it is a string, else "" (absent, null or another type).
std::string string_member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace llm
