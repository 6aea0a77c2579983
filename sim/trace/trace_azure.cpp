// Reads the Azure LLM inference trace CSV (TIMESTAMP,ContextTokens,GeneratedTokens) into a Trace.
// The rules (column order, exact timestamps, zero counts clamped to 1) are in traces/README.md,
// "Azure LLM inference traces (CSV)".
#include <algorithm>
#include <charconv>
#include <chrono>
#include <istream>
#include <iterator>
#include <string>
#include <string_view>

#include "sim/trace/request_stream.h"
#include "sim/trace/trace_io.h"
#include "sim/trace/trace_io_internal.h"
#include "sim/trace/trace_stream.h"

namespace llm {
namespace {

// The helpers shared by the readers.
using trace_internal::at_line;
using trace_internal::check_order;
using trace_internal::fail;
using trace_internal::is_blank;
using trace_internal::kNsPerSecond;
using trace_internal::show;

constexpr int64_t kMaxTraceSeconds = 9'000'000'000;  // keeps arrivals in int64 nanoseconds

struct WallTime {
  int64_t seconds = 0;  // since 1970-01-01 00:00:00
  int64_t nanos = 0;    // [0, 1e9)
};

// Parses a whole field as a base-10 integer; false if anything else is there or it overflows.
bool parse_int64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Reads exactly `width` digits at s[pos..] into out.
bool fixed_digits(std::string_view s, size_t pos, size_t width, int& out) {
  if (pos + width > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// "YYYY-MM-DD HH:MM:SS" then optionally '.' and 1 to 9 fractional digits; no time zone.
bool parse_wall_time(std::string_view s, WallTime& out) {
  int year, month, day, hour, minute, second;
  if (!fixed_digits(s, 0, 4, year) || !fixed_digits(s, 5, 2, month) ||
      !fixed_digits(s, 8, 2, day) || !fixed_digits(s, 11, 2, hour) ||
      !fixed_digits(s, 14, 2, minute) || !fixed_digits(s, 17, 2, second)) {
    return false;
  }
  if (s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
      s[16] != ':') {
    return false;
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(month),
                                   std::chrono::day(day)};
  if (!date.ok()) return false;
  int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  out.seconds = days * 86400 + hour * 3600 + minute * 60 + second;
  out.nanos = 0;
  if (s.size() == 19) return true;
  size_t digits = s.size() - 20;
  if (s[19] != '.' || digits < 1 || digits > 9) return false;
  int64_t scale = kNsPerSecond;
  for (size_t i = 20; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    scale /= 10;
    out.nanos += (s[i] - '0') * scale;
  }
  return true;
}

constexpr std::string_view kAzureColumns[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};

// Splits a CSV line on commas (no quoting in this format). Returns the field count; at most 4
// fields are stored.
int split_csv(std::string_view line, std::string_view (&fields)[4]) {
  int count = 0;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view field = line.substr(start, comma - start);
    if (count < 4) fields[count] = field;
    ++count;
    if (comma == std::string_view::npos) return count;
    start = comma + 1;
  }
}

// Maps the header to column indexes: column[k] is the position of kAzureColumns[k].
void parse_azure_header(std::string_view line, const std::string& where, int (&column)[3]) {
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // UTF-8 byte order mark
  std::string_view fields[4];
  int count = split_csv(line, fields);
  const std::string expected = " (expected TIMESTAMP,ContextTokens,GeneratedTokens)";
  if (count != 3) {
    fail(where, "header", std::to_string(count) + " columns" + expected);
  }
  std::fill(std::begin(column), std::end(column), -1);
  for (int i = 0; i < 3; ++i) {
    auto it = std::find(std::begin(kAzureColumns), std::end(kAzureColumns), fields[i]);
    if (it == std::end(kAzureColumns))
      fail(where, "header", "unknown column " + show(fields[i]) + expected);
    int k = static_cast<int>(it - std::begin(kAzureColumns));
    if (column[k] >= 0) fail(where, "header", "duplicate column " + show(fields[i]));
    column[k] = i;
  }
}

// Reads a token count; 0 is clamped to 1 (see traces/README.md), negatives are errors.
int64_t azure_tokens(std::string_view text, const std::string& where, std::string_view column) {
  int64_t value;
  if (!parse_int64(text, value)) fail(where, column, show(text) + " is not an integer");
  if (value < 0) fail(where, column, "negative token count " + std::to_string(value));
  return std::max<int64_t>(value, 1);
}

}  // namespace

AzureCsvStream::AzureCsvStream(std::istream& in, std::string name, bool check_order)
    : in_(in), name_(std::move(name)), check_order_(check_order) {
  if (!next_line()) fail(at_line(name_, 1), "header", "empty file");
  parse_azure_header(line_, at_line(name_, 1), column_);
}

bool AzureCsvStream::next_line() {
  if (!std::getline(in_, line_)) return false;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  ++line_number_;
  return true;
}

const TraceRequest* AzureCsvStream::next() {
  while (next_line()) {
    if (is_blank(line_)) continue;
    const std::string where = at_line(name_, line_number_);
    std::string_view fields[4];
    int count = split_csv(line_, fields);
    if (count != 3)
      fail(where, "row", "expected 3 comma-separated fields, found " + std::to_string(count));
    WallTime t;
    if (!parse_wall_time(fields[column_[0]], t)) {
      fail(where, "TIMESTAMP",
           show(fields[column_[0]]) + " is not a time like 2023-11-16 18:17:03.9799600");
    }
    if (rows_ == 0) {
      first_seconds_ = t.seconds;
      first_nanos_ = t.nanos;
    }
    if (t.seconds - first_seconds_ > kMaxTraceSeconds) {
      fail(where, "TIMESTAMP", "more than 290 years after the first row");
    }
    if (t.seconds - first_seconds_ < -kMaxTraceSeconds) {  // would overflow the nanoseconds below
      fail(where, "TIMESTAMP", "more than 290 years before the first row");
    }
    TraceRequest& r = current_;
    r.id = std::to_string(line_number_);
    r.arrival_ns = (t.seconds - first_seconds_) * kNsPerSecond + (t.nanos - first_nanos_);
    if (rows_ > 0 && check_order_) {
      check_order(where, "TIMESTAMP", r.arrival_ns, previous_arrival_,
                  "the previous row (line " + std::to_string(previous_line_) + ")");
    }
    r.prompt_len = azure_tokens(fields[column_[1]], where, "ContextTokens");
    r.output_len = azure_tokens(fields[column_[2]], where, "GeneratedTokens");
    previous_line_ = line_number_;
    previous_arrival_ = r.arrival_ns;
    ++rows_;
    return &r;
  }
  if (rows_ == 0) fail(at_line(name_, 2), "requests", "no requests (only a header)");
  return nullptr;
}

Trace parse_azure_csv(std::istream& in, const std::string& name) {
  AzureCsvStream stream(in, name);
  Trace trace = collect_stream(stream);
  trace.source = name;
  trace.format = "azure-csv";
  return trace;
}

}  // namespace llm
