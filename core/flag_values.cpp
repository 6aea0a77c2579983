#include "core/flag_values.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace llm {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

double parse_finite(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw UsageError(flag + ": expected a number, got '" + text + "'");
  }
  return value;
}

}  // namespace

int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min_value,
                       int64_t max_value) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError(flag + ": expected an integer, got '" + text + "'");
  }
  if (value < min_value) {
    throw UsageError(flag + ": must be at least " + std::to_string(min_value) + ", got " + text);
  }
  if (value > max_value) {
    throw UsageError(flag + ": must be at most " + std::to_string(max_value) + ", got " + text);
  }
  return value;
}

uint64_t parse_uint_flag(const std::string& flag, const std::string& text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError(flag + ": expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

double parse_double_flag(const std::string& flag, const std::string& text, double min_value) {
  const double value = parse_finite(flag, text);
  if (value < min_value) {
    throw UsageError(flag + ": must be at least " + number_text(min_value) + ", got " + text);
  }
  return value;
}

double parse_double_above_flag(const std::string& flag, const std::string& text, double bound) {
  const double value = parse_finite(flag, text);
  if (!(value > bound)) {
    throw UsageError(flag + ": must be greater than " + number_text(bound) + ", got " + text);
  }
  return value;
}

std::string choice_list(const std::vector<std::string>& choices) {
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) list += i + 1 == choices.size() ? " or " : ", ";
    list += choices[i];
  }
  return list;
}

std::string parse_choice_flag(const std::string& flag, const std::string& text,
                              const std::vector<std::string>& choices) {
  for (const std::string& c : choices) {
    if (text == c) return text;
  }
  throw UsageError(flag + ": expected " + choice_list(choices) + ", got '" + text + "'");
}

void check_detailed_traces_flag(const std::string& flag, const std::string& text) {
  for (const std::string& item : parse_comma_list_flag(flag, text)) {
    parse_choice_flag(flag, item, {"model", "worker", "all", "engine"});
  }
}

std::vector<std::string> parse_comma_list_flag(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (items.back().empty()) throw UsageError(flag + ": an empty item in '" + text + "'");
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace llm
