// Reads a Mooncake trace (JSON lines: timestamp in ms, input_length, output_length, hash_ids of
// 512-token blocks) into a Trace. The rules (which fields are required, how many hash ids a prompt
// may have) are in traces/README.md, "Mooncake traces (JSON lines)".
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
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
using trace_internal::Field;
using trace_internal::get_hash_ids;
using trace_internal::get_int;
using trace_internal::get_time_ns;
using trace_internal::is_blank;
using trace_internal::json;
using trace_internal::kNsPerMs;
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

MooncakeJsonlStream::MooncakeJsonlStream(std::istream& in, std::string name, bool check_order)
    : in_(in), name_(std::move(name)), check_order_(check_order) {}

const TraceRequest* MooncakeJsonlStream::next() {
  while (std::getline(in_, line_)) {
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    ++line_number_;
    if (is_blank(line_)) continue;
    const std::string where = at_line(name_, line_number_);
    TraceRequest r = mooncake_request(line_, where);
    r.id = std::to_string(line_number_);
    if (rows_ > 0 && check_order_) {
      check_order(where, "timestamp", r.arrival_ns, previous_arrival_,
                  "line " + std::to_string(previous_line_));
    }
    previous_line_ = line_number_;
    previous_arrival_ = r.arrival_ns;
    ++rows_;
    current_ = std::move(r);
    return &current_;
  }
  if (rows_ == 0) fail(at_line(name_, 1), "requests", "no requests (empty file)");
  return nullptr;
}

Trace parse_mooncake_jsonl(std::istream& in, const std::string& name) {
  MooncakeJsonlStream stream(in, name);
  Trace trace = collect_stream(stream);
  trace.source = name;
  trace.format = "mooncake-jsonl";
  return trace;
}

}  // namespace llm
