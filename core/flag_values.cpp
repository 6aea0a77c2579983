#include "core/flag_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace llm {

int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min_value) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw std::invalid_argument(flag + ": expected an integer, got '" + text + "'");
  }
  if (value < min_value) {
    throw std::invalid_argument(flag + ": must be at least " + std::to_string(min_value) +
                                ", got " + text);
  }
  return value;
}

uint64_t parse_uint_flag(const std::string& flag, const std::string& text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw std::invalid_argument(flag + ": expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

double parse_double_flag(const std::string& flag, const std::string& text, double min_value) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw std::invalid_argument(flag + ": expected a number, got '" + text + "'");
  }
  if (value < min_value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", min_value);
    throw std::invalid_argument(flag + ": must be at least " + buf + ", got " + text);
  }
  return value;
}

}  // namespace llm
