// The helpers shared by the trace readers; see trace_io_internal.h.
#include "sim/trace/trace_io_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ceil_div.h"
#include "sim/trace/trace.h"

namespace llm::trace_internal {

void fail(const std::string& where, std::string_view field, const std::string& what) {
  std::string msg = where;
  msg += ": ";
  msg += field;
  msg += ": ";
  msg += what;
  throw TraceError(msg);
}

std::string at_line(const std::string& name, int64_t line) {
  return name + ":" + std::to_string(line);
}

std::string show(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out = "'";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  return out + "'";
}

std::string read_all(std::istream& in) {
  std::ostringstream buf;
  buf << in.rdbuf();
  return std::move(buf).str();
}

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

void check_order(const std::string& where, std::string_view field, int64_t arrival,
                 int64_t previous, const std::string& previous_name) {
  if (arrival < previous) {
    fail(where, field, "out of time order: earlier than " + previous_name);
  }
}

int64_t get_int(const json& v, const Field& f, int64_t lo, int64_t hi) {
  int64_t value;
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(f.where, f.name, "must be <= " + std::to_string(hi) + ", got " + v.dump());
    }
    value = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    value = v.get<int64_t>();
  } else {
    fail(f.where, f.name, "must be an integer, got " + v.dump());
  }
  if (value < lo) fail(f.where, f.name, "must be >= " + std::to_string(lo) + ", got " + v.dump());
  if (value > hi) fail(f.where, f.name, "must be <= " + std::to_string(hi) + ", got " + v.dump());
  return value;
}

int64_t get_time_ns(const json& v, const Field& f, int64_t unit_ns) {
  if (v.is_number_integer() || v.is_number_unsigned()) {
    int64_t t = get_int(v, f, 0, std::numeric_limits<int64_t>::max() / unit_ns);
    return t * unit_ns;
  }
  if (!v.is_number_float()) fail(f.where, f.name, "must be a number, got " + v.dump());
  double t = v.get<double>();
  if (!std::isfinite(t)) fail(f.where, f.name, "must be finite, got " + v.dump());
  if (t < 0) fail(f.where, f.name, "must be >= 0, got " + v.dump());
  double ns = t * static_cast<double>(unit_ns);
  if (ns >= kMaxNsAsDouble) fail(f.where, f.name, "too large, got " + v.dump());
  return std::llround(ns);
}

std::vector<uint64_t> get_hash_ids(const json& v, const Field& f, int64_t prompt_len,
                                   int64_t block_size, std::string_view len_name) {
  if (!v.is_array()) fail(f.where, f.name, "must be an array of integers, got " + show(v.dump()));
  std::vector<uint64_t> ids;
  ids.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    if (!e.is_number_unsigned() && !(e.is_number_integer() && e.get<int64_t>() >= 0)) {
      fail(f.where, f.name + "[" + std::to_string(i) + "]",
           "must be a non-negative integer, got " + e.dump());
    }
    ids.push_back(e.get<uint64_t>());
  }
  int64_t blocks = ceil_div(prompt_len, block_size);
  if (static_cast<int64_t>(ids.size()) > blocks) {
    fail(f.where, f.name,
         std::to_string(ids.size()) + " ids but " + std::string(len_name) + " " +
             std::to_string(prompt_len) + " has only " + std::to_string(blocks) + " blocks of " +
             std::to_string(block_size) + " tokens");
  }
  return ids;
}

}  // namespace llm::trace_internal
