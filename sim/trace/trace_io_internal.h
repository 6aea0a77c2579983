// Helpers shared by the trace readers (trace_azure.cpp, trace_mooncake.cpp, trace_json.cpp) and
// trace_io.cpp. Private to those files: include sim/trace/trace_io.h everywhere else. Every check
// throws llm::TraceError with the message "WHERE: FIELD: what is wrong", where WHERE is "FILE:LINE"
// or "FILE" (see trace_io.h). Thread-safety: functions are reentrant and share no state; a
// LineReader is used by one thread.
#pragma once

#include <cstdint>
#include <istream>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace llm::trace_internal {

using json = nlohmann::json;

inline constexpr int64_t kNsPerSecond = 1'000'000'000;
inline constexpr int64_t kNsPerMs = 1'000'000;
inline constexpr double kMaxNsAsDouble = 9.2e18;  // a little below INT64_MAX

// Throws TraceError("WHERE: FIELD: WHAT").
[[noreturn]] void fail(const std::string& where, std::string_view field, const std::string& what);

// "NAME:LINE".
std::string at_line(const std::string& name, int64_t line);

// s in single quotes for a message, cut after 60 characters ("...").
std::string show(std::string_view s);

std::string read_all(std::istream& in);

// Only spaces and tabs (or nothing).
bool is_blank(std::string_view s);

// Fails "out of time order: earlier than PREVIOUS_NAME" when arrival < previous.
void check_order(const std::string& where, std::string_view field, int64_t arrival,
                 int64_t previous, const std::string& previous_name);

// Splits text into lines ('\n' separated, a trailing '\r' removed), counting from 1.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : rest_(text) {}

  bool next(std::string_view& line) {
    if (rest_.empty()) return false;
    size_t end = rest_.find('\n');
    line = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number_;
    return true;
  }
  int64_t number() const { return number_; }

 private:
  std::string_view rest_;
  int64_t number_ = 0;
};

// ---------------------------------------------------------------------------------------------
// JSON value helpers shared by the Mooncake and JSON readers. `where` is "FILE:LINE" or "FILE",
// `name` the full field name used in messages.

struct Field {
  const std::string& where;
  std::string name;
};

// An integer in [lo, hi].
int64_t get_int(const json& v, const Field& f, int64_t lo, int64_t hi);

// A non-negative time in units of unit_ns nanoseconds, converted to nanoseconds (nearest).
int64_t get_time_ns(const json& v, const Field& f, int64_t unit_ns);

// Non-negative integer ids; at most ceil(prompt_len / block_size) of them. `len_name` names the
// prompt length field in the message.
std::vector<uint64_t> get_hash_ids(const json& v, const Field& f, int64_t prompt_len,
                                   int64_t block_size, std::string_view len_name);

}  // namespace llm::trace_internal
