// Reads and writes our JSON trace format: one object with an optional "metadata" object and a
// "requests" array (arrival, prompt_len or prompt_tokens, output_len, optional prefix hashes, n,
// max_tokens, priority, cache_salt). The fields and the validation rules are in traces/README.md,
// "Our JSON trace format".
#include <algorithm>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <unordered_map>

#include "sim/trace/trace_io.h"
#include "sim/trace/trace_io_internal.h"

namespace llm {
namespace {

// The helpers shared by the readers.
using trace_internal::at_line;
using trace_internal::check_order;
using trace_internal::fail;
using trace_internal::Field;
using trace_internal::get_hash_ids;
using trace_internal::get_int;
using trace_internal::get_time_ns;
using trace_internal::json;
using trace_internal::kNsPerMs;
using trace_internal::kNsPerSecond;
using trace_internal::read_all;
using trace_internal::show;

// ---------------------------------------------------------------------------------------------
// Reader

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string get_string(const json& v, const Field& f) {
  if (!v.is_string()) fail(f.where, f.name, "must be a string, got " + v.dump());
  return v.get<std::string>();
}

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
  } else if (key == "cache_salt") {
    r.cache_salt = get_string(value, f);
    if (r.cache_salt.empty()) fail(f.where, f.name, "must not be empty (leave it out for none)");
  } else {
    fail(f.where, f.name,
         "unknown field (expected id, arrival, prompt_len, prompt_tokens, output_len, "
         "prefix_hash_ids, hash_block_size, n, max_tokens, priority, cache_salt)");
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
  if (!r.cache_salt.empty()) out << ", \"cache_salt\": " << json_string(r.cache_salt);
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

}  // namespace llm
