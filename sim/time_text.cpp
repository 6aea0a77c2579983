#include "sim/time_text.h"

#include <chrono>
#include <cstdio>

namespace llm {
namespace {

bool read_digits(const std::string& s, size_t& pos, size_t count, int64_t& value) {
  value = 0;
  for (size_t i = 0; i < count; ++i, ++pos) {
    if (pos >= s.size() || s[pos] < '0' || s[pos] > '9') return false;
    value = value * 10 + (s[pos] - '0');
  }
  return true;
}

bool expect(const std::string& s, size_t& pos, char c) {
  if (pos >= s.size() || (s[pos] != c && !(c == 'T' && s[pos] == 't'))) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<int64_t> parse_duration_ns(const std::string& text) {
  static const struct {
    const char* unit;
    int64_t ns;
  } kUnits[] = {{"ms", 1'000'000},
                {"s", 1'000'000'000},
                {"m", 60'000'000'000},
                {"h", 3'600'000'000'000},
                {"d", 86'400'000'000'000}};
  int64_t total = 0;
  size_t pos = 0;
  if (text.empty()) return std::nullopt;
  while (pos < text.size()) {
    int64_t number = 0;
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      number = number * 10 + (text[pos] - '0');
      if (number > 1'000'000'000) return std::nullopt;
      ++pos;
    }
    if (pos == start) return std::nullopt;
    bool matched = false;
    for (const auto& u : kUnits) {
      const std::string unit = u.unit;
      if (text.compare(pos, unit.size(), unit) == 0 &&
          !(unit == "m" && pos + 1 < text.size() && text[pos + 1] == 's')) {
        total += number * u.ns;
        pos += unit.size();
        matched = true;
        break;
      }
    }
    if (!matched) return std::nullopt;
  }
  if (total <= 0) return std::nullopt;
  return total;
}

std::optional<int64_t> parse_rfc3339_ns(const std::string& s) {
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second;
  if (!read_digits(s, pos, 4, year) || !expect(s, pos, '-') || !read_digits(s, pos, 2, month) ||
      !expect(s, pos, '-') || !read_digits(s, pos, 2, day) || !expect(s, pos, 'T') ||
      !read_digits(s, pos, 2, hour) || !expect(s, pos, ':') || !read_digits(s, pos, 2, minute) ||
      !expect(s, pos, ':') || !read_digits(s, pos, 2, second)) {
    return std::nullopt;
  }
  int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) {
        nanos = nanos * 10 + (s[pos] - '0');
        ++digits;
      }
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 9; ++digits) nanos *= 10;
  }
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int64_t oh, om;
    if (!read_digits(s, pos, 2, oh) || !expect(s, pos, ':') || !read_digits(s, pos, 2, om)) {
      return std::nullopt;
    }
    offset_s = sign * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (pos != s.size() || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(year)),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  const int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return seconds * 1'000'000'000 + nanos;
}

std::string unix_seconds_text(int64_t unix_ns) {
  const int64_t ms = unix_ns / 1'000'000;
  if (ms % 1000 == 0) return std::to_string(ms / 1000);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return buf;
}

std::string duration_text(int64_t ns) {
  const int64_t ms = ns / 1'000'000;
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

std::string trace_time_text(int64_t t_ns, int64_t start_ns) {
  int64_t ms = (t_ns - start_ns) / 1'000'000;
  if (ms == 0) return "0s";
  std::string s = ms < 0 ? "-" : "";
  if (ms < 0) ms = -ms;
  const struct {
    const char* unit;
    int64_t ms;
  } units[] = {{"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}};
  for (const auto& u : units) {
    if (ms >= u.ms) {
      s += std::to_string(ms / u.ms) + u.unit;
      ms %= u.ms;
    }
  }
  return s;
}

}  // namespace llm
