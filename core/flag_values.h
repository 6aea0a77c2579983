// Command-line flag values shared by every program: the one error type for a bad flag, a bad
// value or a bad combination of flags (UsageError; every program exits with code 2 on it), and
// strict parsers of integers, numbers and enumerations with range checks. Every message starts
// with the flag ("--port: must be at most 65535, got 70000"); docs/cli.md lists the wordings.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {

// A bad flag, flag value or combination; what() names the flag(s). Programs print
// "PROGRAM: what()" and exit with kUsageExitCode.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline constexpr int kUsageExitCode = 2;

// An integer in [min_value, max_value].
int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min_value,
                       int64_t max_value = std::numeric_limits<int64_t>::max());
// Any non-negative integer up to 2^64 - 1.
uint64_t parse_uint_flag(const std::string& flag, const std::string& text);
// A finite number of at least min_value.
double parse_double_flag(const std::string& flag, const std::string& text, double min_value);
// A finite number strictly greater than bound.
double parse_double_above_flag(const std::string& flag, const std::string& text, double bound);
// One of `choices`, returned as given; the error lists them ("expected a, b or c, got 'x'").
std::string parse_choice_flag(const std::string& flag, const std::string& text,
                              const std::vector<std::string>& choices);

// "a,b,c" as {"a", "b", "c"}; an empty item is "FLAG: an empty item in 'a,,c'".
std::vector<std::string> parse_comma_list_flag(const std::string& flag, const std::string& text);

// --collect-detailed-traces (llmserve and llmsim replay): a comma list of vLLM's modules "model",
// "worker", "all", and ours, "engine", in any number and order.
void check_detailed_traces_flag(const std::string& flag, const std::string& text);

// "a", "a or b", "a, b or c".
std::string choice_list(const std::vector<std::string>& choices);

}  // namespace llm
