// Reads a Mooncake trace (JSON lines: timestamp in ms, input_length, output_length, hash_ids of
// 512-token blocks) into a Trace. The rules (which fields are required, how many hash ids a prompt
// may have) are in traces/README.md, "Mooncake traces (JSON lines)".
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

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
using trace_internal::is_blank;
using trace_internal::json;
using trace_internal::kNsPerMs;
using trace_internal::LineReader;
using trace_internal::read_all;
using trace_internal::show;

constexpr int64_t kMooncakeBlockSize = 512;

const json& require(const json& obj, std::string_view key, const Field& f) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(f.where, f.name, "missing field");
  return *it;
}

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

}  // namespace llm
