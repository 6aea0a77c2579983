// Reads and writes our JSON trace format: one object with an optional "metadata" object and a
// "requests" array (arrival, prompt_len or prompt_tokens, output_len, optional prefix hashes, n,
// max_tokens, priority, cache_salt). The fields and the validation rules are in traces/README.md,
// "Our JSON trace format". The reader streams: a first pass checks the whole document's syntax and
// top level (sim/trace/json_trace_scan.h), a second parses one request at a time; repeated ids are
// found with a SeenIds (sim/trace/seen_ids.h), not a map of every id.
#include <algorithm>
#include <istream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/trace/json_trace_scan.h"
#include "sim/trace/seen_ids.h"
#include "sim/trace/trace_io.h"
#include "sim/trace/trace_io_internal.h"
#include "sim/trace/trace_stream.h"

namespace llm {
namespace {

// The helpers shared by the readers.
using trace_internal::check_order;
using trace_internal::fail;
using trace_internal::Field;
using trace_internal::get_hash_ids;
using trace_internal::get_int;
using trace_internal::get_time_ns;
using trace_internal::json;
using trace_internal::JsonArrayElements;
using trace_internal::JsonTopLevel;
using trace_internal::kNsPerMs;
using trace_internal::kNsPerSecond;
using trace_internal::OpenInput;
using trace_internal::read_all;
using trace_internal::scan_json_top_level;
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

// Our JSON format read a request at a time (see open_json_trace_stream).
class JsonTraceStream final : public RequestStream {
 public:
  // Reads the top level and checks it as parsing the whole document did: the syntax first, then
  // the top-level keys in sorted order (metadata among them), then "requests".
  JsonTraceStream(OpenInput open, std::string name, TraceMetadata* metadata, bool check_ids)
      : open_(std::move(open)), name_(std::move(name)), check_ids_(check_ids) {
    const JsonTopLevel top = scan_json_top_level(open_, name_);
    if (!top.is_object) fail(name_, "json", "top level must be an object with \"requests\"");
    TraceMetadata meta;
    for (const std::string& key : top.keys) {
      if (key == "metadata") {
        meta = parse_metadata(top.metadata, name_);
      } else if (key != "requests") {
        fail(name_, key, "unknown field (expected metadata, requests)");
      }
    }
    if (top.requests_keys == 0) fail(name_, "requests", "missing field");
    if (!top.requests_is_array) {
      fail(name_, "requests", "must be an array, got " + show(top.requests_value.dump()));
    }
    if (top.requests_count == 0) fail(name_, "requests", "no requests");
    unit_ns_ = time_unit_ns(meta.time_unit, {name_, "metadata.time_unit"});
    if (metadata != nullptr) *metadata = std::move(meta);
    input_ = open_();
    elements_ = std::make_unique<JsonArrayElements>(*input_, top.requests_keys - 1, name_);
  }

  const TraceRequest* next() override {
    if (!elements_->next(text_)) return nullptr;
    const size_t i = index_++;
    current_ = parse_request(json::parse(text_), i, name_, unit_ns_);  // valid: scanned
    const std::string field = "requests[" + std::to_string(i) + "]";
    if (i > 0) {
      check_order(name_, field + ".arrival", current_.arrival_ns, previous_arrival_,
                  "requests[" + std::to_string(i - 1) + "]");
    }
    if (check_ids_ && !ids_.insert(current_.id)) {
      const size_t first = first_use(current_.id, i);
      if (first < i) {
        fail(name_, field + ".id",
             "duplicate id " + show(current_.id) + " (also requests[" + std::to_string(first) +
                 "])");
      }
    }
    previous_arrival_ = current_.arrival_ns;
    return &current_;
  }

 private:
  // The first request before `end` with id `id` (`end` if none: two ids shared a fingerprint).
  size_t first_use(const std::string& id, size_t end) const {
    JsonTraceStream again(open_, name_, nullptr, false);
    for (size_t j = 0; j < end; ++j) {
      const TraceRequest* r = again.next();
      if (r == nullptr) break;
      if (r->id == id) return j;
    }
    return end;
  }

  OpenInput open_;
  std::string name_;
  bool check_ids_;
  int64_t unit_ns_ = 1;
  std::unique_ptr<std::istream> input_;
  std::unique_ptr<JsonArrayElements> elements_;
  std::string text_;
  size_t index_ = 0;
  int64_t previous_arrival_ = 0;
  SeenIds ids_;
  TraceRequest current_;
};

// A string read as a stream, not copied.
class TextInput final : public std::istream {
 public:
  explicit TextInput(const std::string& text) : std::istream(nullptr), buf_(text) { rdbuf(&buf_); }

 private:
  struct Buf : std::streambuf {
    explicit Buf(const std::string& text) {
      char* p = const_cast<char*>(text.data());
      setg(p, p, p + text.size());
    }
  } buf_;
};

}  // namespace

std::unique_ptr<RequestStream> open_json_trace_stream(
    std::function<std::unique_ptr<std::istream>()> open, const std::string& name,
    TraceMetadata* metadata) {
  return std::make_unique<JsonTraceStream>(std::move(open), name, metadata, true);
}

Trace parse_trace_json(std::istream& in, const std::string& name, TraceMetadata* metadata) {
  const std::string text = read_all(in);
  Trace trace = collect_stream(*open_json_trace_stream(
      [&text] { return std::make_unique<TextInput>(text); }, name, metadata));
  trace.source = name;
  trace.format = "json";
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
