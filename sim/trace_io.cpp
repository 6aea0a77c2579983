// Trace readers (Azure CSV, Mooncake JSONL, our JSON format) and the JSON writer. See trace_io.h
// and traces/README.md for the formats and the validation rules.
#include "sim/trace_io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "sim/synthetic.h"

namespace llm {
namespace {

using json = nlohmann::json;

constexpr int64_t kMooncakeBlockSize = 512;
constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr double kMaxNsAsDouble = 9.2e18;            // a little below INT64_MAX
constexpr int64_t kMaxTraceSeconds = 9'000'000'000;  // keeps arrivals in int64 nanoseconds

// ---------------------------------------------------------------------------------------------
// Shared helpers

[[noreturn]] void fail(const std::string& where, std::string_view field, const std::string& what) {
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

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

// Parses a whole field as a base-10 integer; false if anything else is there or it overflows.
bool parse_int64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

void check_order(const std::string& where, std::string_view field, int64_t arrival,
                 int64_t previous, const std::string& previous_name) {
  if (arrival < previous) {
    fail(where, field, "out of time order: earlier than " + previous_name);
  }
}

// ---------------------------------------------------------------------------------------------
// Azure CSV

struct WallTime {
  int64_t seconds = 0;  // since 1970-01-01 00:00:00
  int64_t nanos = 0;    // [0, 1e9)
};

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

Trace parse_azure_csv(std::istream& in, const std::string& name) {
  const std::string text = read_all(in);
  LineReader lines(text);
  std::string_view line;
  if (!lines.next(line)) fail(at_line(name, 1), "header", "empty file");
  int column[3];
  parse_azure_header(line, at_line(name, 1), column);

  Trace trace;
  trace.source = name;
  trace.format = "azure-csv";
  WallTime first;
  int64_t previous_line = 0;
  int64_t previous_arrival = 0;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const std::string where = at_line(name, lines.number());
    std::string_view fields[4];
    int count = split_csv(line, fields);
    if (count != 3)
      fail(where, "row", "expected 3 comma-separated fields, found " + std::to_string(count));
    WallTime t;
    if (!parse_wall_time(fields[column[0]], t)) {
      fail(where, "TIMESTAMP",
           show(fields[column[0]]) + " is not a time like 2023-11-16 18:17:03.9799600");
    }
    if (trace.requests.empty()) first = t;
    if (t.seconds - first.seconds > kMaxTraceSeconds) {
      fail(where, "TIMESTAMP", "more than 290 years after the first row");
    }
    TraceRequest r;
    r.id = std::to_string(lines.number());
    r.arrival_ns = (t.seconds - first.seconds) * kNsPerSecond + (t.nanos - first.nanos);
    if (!trace.requests.empty()) {
      check_order(where, "TIMESTAMP", r.arrival_ns, previous_arrival,
                  "the previous row (line " + std::to_string(previous_line) + ")");
    }
    r.prompt_len = azure_tokens(fields[column[1]], where, "ContextTokens");
    r.output_len = azure_tokens(fields[column[2]], where, "GeneratedTokens");
    previous_line = lines.number();
    previous_arrival = r.arrival_ns;
    trace.requests.push_back(std::move(r));
  }
  if (trace.requests.empty()) fail(at_line(name, 2), "requests", "no requests (only a header)");
  return trace;
}

// ---------------------------------------------------------------------------------------------
// JSON value helpers shared by the Mooncake and JSON readers. `where` is "FILE:LINE" or "FILE",
// `field` the full field name used in messages.

namespace {

struct Field {
  const std::string& where;
  std::string name;
};

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

std::string get_string(const json& v, const Field& f) {
  if (!v.is_string()) fail(f.where, f.name, "must be a string, got " + v.dump());
  return v.get<std::string>();
}

// A non-negative time in units of unit_ns nanoseconds, converted to nanoseconds (nearest).
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

// Non-negative integer ids; at most ceil(prompt_len / block_size) of them.
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
  int64_t blocks = (prompt_len + block_size - 1) / block_size;
  if (static_cast<int64_t>(ids.size()) > blocks) {
    fail(f.where, f.name,
         std::to_string(ids.size()) + " ids but " + std::string(len_name) + " " +
             std::to_string(prompt_len) + " has only " + std::to_string(blocks) + " blocks of " +
             std::to_string(block_size) + " tokens");
  }
  return ids;
}

const json& require(const json& obj, std::string_view key, const Field& f) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(f.where, f.name, "missing field");
  return *it;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Mooncake JSONL

namespace {

TraceRequest mooncake_request(std::string_view line, const std::string& where) {
  json row;
  try {
    row = json::parse(line.begin(), line.end());
  } catch (const json::parse_error& e) {
    fail(where, "json", std::string("malformed JSON: ") + e.what());
  } catch (const json::out_of_range& e) {
    fail(where, "json", std::string("number out of range (non-finite): ") + e.what());
  }
  if (!row.is_object()) fail(where, "json", "expected an object, got " + show(row.dump()));
  TraceRequest r;
  r.arrival_ns =
      get_time_ns(require(row, "timestamp", {where, "timestamp"}), {where, "timestamp"}, kNsPerMs);
  Field input{where, "input_length"};
  r.prompt_len = get_int(require(row, "input_length", input), input, 1,
                         std::numeric_limits<int64_t>::max() - kMooncakeBlockSize);
  Field output{where, "output_length"};
  r.output_len = get_int(require(row, "output_length", output), output, 1,
                         std::numeric_limits<int64_t>::max());
  Field hashes{where, "hash_ids"};
  r.prefix_hash_ids = get_hash_ids(require(row, "hash_ids", hashes), hashes, r.prompt_len,
                                   kMooncakeBlockSize, "input_length");
  r.hash_block_size = r.prefix_hash_ids.empty() ? 0 : static_cast<int32_t>(kMooncakeBlockSize);
  return r;
}

}  // namespace

Trace parse_mooncake_jsonl(std::istream& in, const std::string& name) {
  const std::string text = read_all(in);
  LineReader lines(text);
  std::string_view line;
  Trace trace;
  trace.source = name;
  trace.format = "mooncake-jsonl";
  int64_t previous_line = 0;
  while (lines.next(line)) {
    if (is_blank(line)) continue;
    const std::string where = at_line(name, lines.number());
    TraceRequest r = mooncake_request(line, where);
    r.id = std::to_string(lines.number());
    if (!trace.requests.empty()) {
      check_order(where, "timestamp", r.arrival_ns, trace.requests.back().arrival_ns,
                  "line " + std::to_string(previous_line));
    }
    previous_line = lines.number();
    trace.requests.push_back(std::move(r));
  }
  if (trace.requests.empty()) fail(at_line(name, 1), "requests", "no requests (empty file)");
  return trace;
}

// ---------------------------------------------------------------------------------------------
// Our JSON format

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

int64_t time_unit_ns(const std::string& unit, const Field& f) {
  if (unit == "s") return kNsPerSecond;
  if (unit == "ms") return kNsPerMs;
  if (unit == "ns") return 1;
  fail(f.where, f.name, "must be \"s\", \"ms\" or \"ns\", got " + show(unit));
}

TraceMetadata parse_metadata(const json& v, const std::string& where) {
  if (!v.is_object()) fail(where, "metadata", "must be an object, got " + show(v.dump()));
  TraceMetadata m;
  for (const auto& [key, value] : v.items()) {
    Field f{where, "metadata." + key};
    if (key == "name") {
      m.name = get_string(value, f);
    } else if (key == "description") {
      m.description = get_string(value, f);
    } else if (key == "source") {
      m.source = get_string(value, f);
    } else if (key == "license") {
      m.license = get_string(value, f);
    } else if (key == "time_unit") {
      m.time_unit = get_string(value, f);
      time_unit_ns(m.time_unit, f);
    } else {
      fail(where, f.name, "unknown field (expected name, description, source, license, time_unit)");
    }
  }
  return m;
}

std::vector<int32_t> get_tokens(const json& v, const Field& f) {
  if (!v.is_array()) fail(f.where, f.name, "must be an array of token ids, got " + show(v.dump()));
  std::vector<int32_t> tokens;
  tokens.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    tokens.push_back(static_cast<int32_t>(
        get_int(v[i], {f.where, f.name + "[" + std::to_string(i) + "]"}, 0, kInt32Max)));
  }
  return tokens;
}

// Fields of one request as found, before the cross-field checks.
struct RawRequest {
  const json* prompt_len = nullptr;
  const json* prompt_tokens = nullptr;
  const json* prefix_hash_ids = nullptr;
  const json* hash_block_size = nullptr;
  bool has_arrival = false;
  bool has_output_len = false;
};

void parse_request_field(const std::string& key, const json& value, const Field& f, int64_t unit_ns,
                         TraceRequest& r, RawRequest& raw) {
  if (key == "id") {
    r.id = get_string(value, f);
    if (r.id.empty()) fail(f.where, f.name, "must not be empty");
  } else if (key == "arrival") {
    r.arrival_ns = get_time_ns(value, f, unit_ns);
    raw.has_arrival = true;
  } else if (key == "prompt_len") {
    raw.prompt_len = &value;
  } else if (key == "prompt_tokens") {
    raw.prompt_tokens = &value;
  } else if (key == "output_len") {
    r.output_len = get_int(value, f, 1, kInt64Max);
    raw.has_output_len = true;
  } else if (key == "prefix_hash_ids") {
    raw.prefix_hash_ids = &value;
  } else if (key == "hash_block_size") {
    raw.hash_block_size = &value;
  } else if (key == "n") {
    r.n = static_cast<int32_t>(get_int(value, f, 1, kInt32Max));
  } else if (key == "max_tokens") {
    r.max_tokens = get_int(value, f, 1, kInt64Max);
  } else if (key == "priority") {
    r.priority =
        static_cast<int32_t>(get_int(value, f, std::numeric_limits<int32_t>::min(), kInt32Max));
  } else {
    fail(f.where, f.name,
         "unknown field (expected id, arrival, prompt_len, prompt_tokens, output_len, "
         "prefix_hash_ids, hash_block_size, n, max_tokens, priority)");
  }
}

void resolve_prompt(const RawRequest& raw, const std::string& where, const std::string& prefix,
                    TraceRequest& r) {
  if (raw.prompt_tokens != nullptr) {
    r.prompt_tokens = get_tokens(*raw.prompt_tokens, {where, prefix + "prompt_tokens"});
    r.prompt_len = static_cast<int64_t>(r.prompt_tokens.size());
    if (r.prompt_len < 1) fail(where, prefix + "prompt_tokens", "must not be empty");
  }
  if (raw.prompt_len != nullptr) {
    int64_t len = get_int(*raw.prompt_len, {where, prefix + "prompt_len"}, 1, kInt64Max / 2);
    if (raw.prompt_tokens != nullptr && len != r.prompt_len) {
      fail(where, prefix + "prompt_len",
           std::to_string(len) + " disagrees with prompt_tokens, which has " +
               std::to_string(r.prompt_len) + " tokens");
    }
    r.prompt_len = len;
  }
  if (raw.prompt_len == nullptr && raw.prompt_tokens == nullptr) {
    fail(where, prefix + "prompt_len", "missing field (give prompt_len or prompt_tokens)");
  }
}

void resolve_prefix(const RawRequest& raw, const std::string& where, const std::string& prefix,
                    TraceRequest& r) {
  if (raw.prefix_hash_ids == nullptr && raw.hash_block_size == nullptr) return;
  if (raw.hash_block_size == nullptr) {
    fail(where, prefix + "hash_block_size", "missing field (required with prefix_hash_ids)");
  }
  if (raw.prefix_hash_ids == nullptr) {
    fail(where, prefix + "prefix_hash_ids", "missing field (required with hash_block_size)");
  }
  int64_t block = get_int(*raw.hash_block_size, {where, prefix + "hash_block_size"}, 1, kInt32Max);
  r.prefix_hash_ids = get_hash_ids(*raw.prefix_hash_ids, {where, prefix + "prefix_hash_ids"},
                                   r.prompt_len, block, "prompt_len");
  r.hash_block_size = r.prefix_hash_ids.empty() ? 0 : static_cast<int32_t>(block);
}

TraceRequest parse_request(const json& v, size_t index, const std::string& where, int64_t unit_ns) {
  const std::string prefix = "requests[" + std::to_string(index) + "].";
  if (!v.is_object()) {
    fail(where, prefix.substr(0, prefix.size() - 1), "must be an object, got " + show(v.dump()));
  }
  TraceRequest r;
  RawRequest raw;
  for (const auto& [key, value] : v.items()) {
    parse_request_field(key, value, {where, prefix + key}, unit_ns, r, raw);
  }
  if (!raw.has_arrival) fail(where, prefix + "arrival", "missing field");
  if (!raw.has_output_len) fail(where, prefix + "output_len", "missing field");
  resolve_prompt(raw, where, prefix, r);
  resolve_prefix(raw, where, prefix, r);
  if (r.id.empty()) r.id = std::to_string(index);
  return r;
}

int64_t line_at(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
}

// nlohmann reports overflowing numbers ("1e999") without a position: find the literal it quotes.
std::string overflow_location(const std::string& text, const std::string& what,
                              const std::string& name) {
  size_t open = what.find('\'');
  size_t close = what.rfind('\'');
  if (open == std::string::npos || close <= open + 1) return name;
  size_t pos = text.find(what.substr(open + 1, close - open - 1));
  return pos == std::string::npos ? name : at_line(name, line_at(text, pos));
}

json parse_json_text(const std::string& text, const std::string& name) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(at_line(name, line_at(text, e.byte == 0 ? 0 : e.byte - 1)), "json",
         std::string("malformed JSON: ") + e.what());
  } catch (const json::out_of_range& e) {
    fail(overflow_location(text, e.what(), name), "json",
         std::string("number out of range (non-finite): ") + e.what());
  }
}

}  // namespace

Trace parse_trace_json(std::istream& in, const std::string& name, TraceMetadata* metadata) {
  const json root = parse_json_text(read_all(in), name);
  if (!root.is_object()) fail(name, "json", "top level must be an object with \"requests\"");
  TraceMetadata meta;
  for (const auto& [key, value] : root.items()) {
    if (key == "metadata") {
      meta = parse_metadata(value, name);
    } else if (key != "requests") {
      fail(name, key, "unknown field (expected metadata, requests)");
    }
  }
  auto it = root.find("requests");
  if (it == root.end()) fail(name, "requests", "missing field");
  if (!it->is_array()) fail(name, "requests", "must be an array, got " + show(it->dump()));
  if (it->empty()) fail(name, "requests", "no requests");
  const int64_t unit_ns = time_unit_ns(meta.time_unit, {name, "metadata.time_unit"});

  Trace trace;
  trace.source = name;
  trace.format = "json";
  trace.requests.reserve(it->size());
  std::unordered_map<std::string, size_t> ids;
  for (size_t i = 0; i < it->size(); ++i) {
    TraceRequest r = parse_request((*it)[i], i, name, unit_ns);
    const std::string field = "requests[" + std::to_string(i) + "]";
    if (i > 0) {
      check_order(name, field + ".arrival", r.arrival_ns, trace.requests.back().arrival_ns,
                  "requests[" + std::to_string(i - 1) + "]");
    }
    auto [pos, inserted] = ids.emplace(r.id, i);
    if (!inserted) {
      fail(name, field + ".id",
           "duplicate id " + show(r.id) + " (also requests[" + std::to_string(pos->second) + "])");
    }
    trace.requests.push_back(std::move(r));
  }
  if (metadata != nullptr) *metadata = std::move(meta);
  return trace;
}

// ---------------------------------------------------------------------------------------------
// Writer

namespace {

constexpr int64_t kSecondsUnitLimitNs = 1'000'000'000'000'000;  // 1e15 ns: about 11.6 days

std::string json_string(const std::string& s) {
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Exact decimal seconds: 4314579000 -> "4.314579".
std::string ns_to_seconds_text(int64_t ns) {
  uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string out = ns < 0 ? "-" : "";
  out += std::to_string(magnitude / kNsPerSecond);
  uint64_t frac = magnitude % kNsPerSecond;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, 9 - digits.size(), '0');
  digits.erase(digits.find_last_not_of('0') + 1);
  return out + "." + digits;
}

template <typename T>
void write_int_array(std::ostream& out, const std::vector<T>& values) {
  out << '[';
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << ']';
}

void write_request(std::ostream& out, const TraceRequest& r, bool seconds) {
  out << "{\"id\": " << json_string(r.id) << ", \"arrival\": "
      << (seconds ? ns_to_seconds_text(r.arrival_ns) : std::to_string(r.arrival_ns))
      << ", \"prompt_len\": " << r.prompt_len;
  if (!r.prompt_tokens.empty()) {
    out << ", \"prompt_tokens\": ";
    write_int_array(out, r.prompt_tokens);
  }
  out << ", \"output_len\": " << r.output_len;
  if (!r.prefix_hash_ids.empty()) {
    out << ", \"prefix_hash_ids\": ";
    write_int_array(out, r.prefix_hash_ids);
    out << ", \"hash_block_size\": " << r.hash_block_size;
  }
  if (r.n != 1) out << ", \"n\": " << r.n;
  if (r.max_tokens != -1) out << ", \"max_tokens\": " << r.max_tokens;
  if (r.priority != 0) out << ", \"priority\": " << r.priority;
  out << '}';
}

void write_metadata(std::ostream& out, const Trace& trace, const TraceMetadata& m, bool seconds) {
  out << "  \"metadata\": {";
  auto item = [&](const char* key, const std::string& value) {
    if (!value.empty()) out << "\n    \"" << key << "\": " << json_string(value) << ',';
  };
  item("name", m.name);
  item("description", m.description);
  item("source", m.source.empty() ? trace.source : m.source);
  item("license", m.license);
  out << "\n    \"time_unit\": \"" << (seconds ? "s" : "ns") << "\"\n  },\n";
}

}  // namespace

void write_trace_json(const Trace& trace, std::ostream& out, const TraceMetadata& metadata) {
  bool seconds = std::all_of(trace.requests.begin(), trace.requests.end(), [](const auto& r) {
    return r.arrival_ns > -kSecondsUnitLimitNs && r.arrival_ns < kSecondsUnitLimitNs;
  });
  out << "{\n";
  write_metadata(out, trace, metadata, seconds);
  out << "  \"requests\": [";
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    out << (i ? ",\n    " : "\n    ");
    write_request(out, trace.requests[i], seconds);
  }
  out << "\n  ]\n}\n";
}

// ---------------------------------------------------------------------------------------------
// read_trace_file, scale_arrivals

namespace {

std::string lower_extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

Trace read_trace_file(const std::string& path) {
  if (path.starts_with("synthetic:")) return generate_synthetic(parse_synthetic_spec(path));
  const std::string ext = lower_extension(path);
  if (ext != ".csv" && ext != ".jsonl" && ext != ".json") {
    throw TraceError(path +
                     ": unknown trace format (accepted: .json for the llmsim JSON format, .csv "
                     "for Azure CSV, .jsonl for Mooncake JSONL, or synthetic:key=value,...)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path + ": cannot open: " + std::strerror(errno));
  if (ext == ".csv") return parse_azure_csv(in, path);
  if (ext == ".jsonl") return parse_mooncake_jsonl(in, path);
  return parse_trace_json(in, path);
}

void scale_arrivals(Trace& trace, double rate_scale) {
  if (!std::isfinite(rate_scale) || rate_scale <= 0) {
    throw std::invalid_argument("scale_arrivals: rate_scale must be finite and > 0, got " +
                                std::to_string(rate_scale));
  }
  std::vector<int64_t> scaled(trace.requests.size());  // all or nothing
  for (size_t i = 0; i < scaled.size(); ++i) {
    double t = static_cast<double>(trace.requests[i].arrival_ns) / rate_scale;
    if (std::fabs(t) >= kMaxNsAsDouble) {
      throw std::out_of_range("scale_arrivals: arrival of request " + trace.requests[i].id +
                              " does not fit in int64 nanoseconds after scaling");
    }
    scaled[i] = std::llround(t);
  }
  for (size_t i = 0; i < scaled.size(); ++i) trace.requests[i].arrival_ns = scaled[i];
}

}  // namespace llm
