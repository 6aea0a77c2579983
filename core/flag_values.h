// Parsing of command-line flag values shared by every binary: strict integers and finite numbers
// with a lower bound. Errors are std::invalid_argument whose message starts with the flag.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min_value);
uint64_t parse_uint_flag(const std::string& flag, const std::string& text);
double parse_double_flag(const std::string& flag, const std::string& text, double min_value);

}  // namespace llm
