// Reading one field of a request body as vLLM validates it: absent or null gives the fallback (or
// nothing), another type or a value out of range is a 400 naming the field (ApiException).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace llm {

// A boolean field; `fallback` when absent or null.
bool optional_bool(const nlohmann::json& body, const char* key, bool fallback);
// An integer field within [min_value, max_value]; nullopt when absent or null.
std::optional<int64_t> optional_int(const nlohmann::json& body, const char* key, int64_t min_value,
                                    int64_t max_value);
// A number field; `fallback` when absent or null.
double optional_number(const nlohmann::json& body, const char* key, double fallback);
// obj[key] when it is a string, else "" (absent, null or another type).
std::string string_member(const nlohmann::json& obj, const char* key);

}  // namespace llm
