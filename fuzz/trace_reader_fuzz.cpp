// Fuzz target: the trace readers of sim/trace/trace_io.h on arbitrary file contents (their
// in-memory entry points, from an istringstream) and the synthetic spec parser of
// sim/trace/synthetic.h. Byte 0 picks the reader: 0 our JSON format, 1 Azure CSV, 2 Mooncake JSONL,
// 3 a "synthetic:..." spec. Checks: a reader returns or throws TraceError; what it returns is a
// valid trace (arrivals non-decreasing, prompt_len matching prompt_tokens, output_len >= 1, n >= 1)
// that write_trace_json writes and parse_trace_json reads back equal; a spec parse_synthetic_spec
// accepts formats back to itself and (when small) generates a valid trace, or generate_synthetic
// throws std::invalid_argument (validate_synthetic_spec's error).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "sim/trace/synthetic.h"
#include "sim/trace/trace_io.h"

namespace {

using llm::fuzz::require;

void check_trace(const llm::Trace& trace) {
  int64_t previous = 0;
  for (const llm::TraceRequest& r : trace.requests) {
    require(r.arrival_ns >= previous, "a trace's arrivals go back in time", r.id);
    previous = r.arrival_ns;
    require(r.prompt_tokens.empty() || static_cast<int64_t>(r.prompt_tokens.size()) == r.prompt_len,
            "prompt_len differs from the prompt_tokens given", r.id);
    require(r.output_len >= 1 && r.n >= 1 && r.prompt_len >= 0, "a request has a bad length", r.id);
  }
}

bool same_requests(const llm::Trace& a, const llm::Trace& b) {
  if (a.requests.size() != b.requests.size()) return false;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    const llm::TraceRequest& x = a.requests[i];
    const llm::TraceRequest& y = b.requests[i];
    if (x.id != y.id || x.arrival_ns != y.arrival_ns || x.prompt_len != y.prompt_len ||
        x.prompt_tokens != y.prompt_tokens || x.output_len != y.output_len ||
        x.prefix_hash_ids != y.prefix_hash_ids || x.hash_block_size != y.hash_block_size ||
        x.n != y.n || x.max_tokens != y.max_tokens || x.priority != y.priority ||
        x.cache_salt != y.cache_salt) {
      return false;
    }
  }
  return true;
}

// The trace through write_trace_json and parse_trace_json comes back equal.
void check_round_trip(const llm::Trace& trace) {
  check_trace(trace);
  std::ostringstream out;
  llm::fuzz::returns_or_throws<>("write_trace_json", [&] { llm::write_trace_json(trace, out); });
  std::istringstream in(out.str());
  llm::Trace back;
  llm::fuzz::returns_or_throws<>("parse_trace_json of write_trace_json's output",
                                 [&] { back = llm::parse_trace_json(in, "written.json"); });
  require(same_requests(trace, back), "a trace written and read back differs", out.str());
}

bool small_enough_to_generate(const llm::SyntheticSpec& s) {
  constexpr int64_t kMaxTokens = 1 << 16;
  return s.num_requests <= 32 && s.prompt.max <= kMaxTokens && s.output.max <= kMaxTokens &&
         s.shared_prefix_len <= kMaxTokens && s.num_shared_prefixes <= 64;
}

void fuzz_synthetic(const std::string& text) {
  llm::SyntheticSpec spec;
  if (!llm::fuzz::returns_or_throws<llm::TraceError>(
          "parse_synthetic_spec", [&] { spec = llm::parse_synthetic_spec(text); })) {
    return;
  }
  const std::string canonical = llm::format_synthetic_spec(spec);
  llm::SyntheticSpec again;
  llm::fuzz::returns_or_throws<>("parse_synthetic_spec of format_synthetic_spec's output",
                                 [&] { again = llm::parse_synthetic_spec(canonical); });
  require(llm::format_synthetic_spec(again) == canonical, "a spec does not format back to itself",
          canonical);
  if (!small_enough_to_generate(spec)) return;
  llm::Trace trace;
  if (llm::fuzz::returns_or_throws<std::invalid_argument>(
          "generate_synthetic", [&] { trace = llm::generate_synthetic(spec); })) {
    require(static_cast<int64_t>(trace.requests.size()) == spec.num_requests,
            "generate_synthetic made another number of requests", canonical);
    check_round_trip(trace);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int reader = data[0] & 3;
  if (reader == 3) {
    fuzz_synthetic(text);
    return 0;
  }
  std::istringstream in(text);
  llm::Trace trace;
  const bool parsed = llm::fuzz::returns_or_throws<llm::TraceError>("a trace reader", [&] {
    if (reader == 0) trace = llm::parse_trace_json(in, "fuzz.json");
    if (reader == 1) trace = llm::parse_azure_csv(in, "fuzz.csv");
    if (reader == 2) trace = llm::parse_mooncake_jsonl(in, "fuzz.jsonl");
  });
  if (parsed) check_round_trip(trace);
  return 0;
}
