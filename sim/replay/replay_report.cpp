#include "sim/replay/replay_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "core/request_metrics.h"

namespace llm {
namespace {

void append_optional(std::string& s, const char* key, const std::optional<double>& v) {
  s += ",\"";
  s += key;
  s += "\":";
  s += v ? json_number(*v) : "null";
}

// Appends text as the inside of a JSON string.
void append_escaped(std::string& s, const std::string& text) {
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
}

void add_if(ExactSamples& samples, const std::optional<double>& v) {
  if (v) samples.add(*v);
}

}  // namespace

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  std::string s(buf, res.ptr);
  // Keep it a JSON float when it reads like an integer, so consumers see one type per field.
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

ReplayReport::ReplayReport(std::ostream* requests_out) : out_(requests_out) {
  for (const char* reason : {"stop", "length", "abort", "error", "rejected"})
    summary_.finish_reasons[reason] = 0;
}

void ReplayReport::on_token(const Request&, Nanos, Nanos itl_ns) {
  if (itl_ns != kNoTime) itl_.add(nanos_to_seconds(itl_ns));
}

void ReplayReport::on_preempted(const Request&) {}

void ReplayReport::on_step(const StepStats& stats) {
  summary_.peak_kv_usage = std::max(summary_.peak_kv_usage, stats.kv_usage);
}

// What the report calls the way a request ended: vLLM's finish reason, or "rejected" for a trace
// request that vLLM's frontend would have refused with a 400 (it never reached the engine).
const char* ReplayReport::outcome(const Request& r) {
  return refused_at_admission(r) ? "rejected" : finish_reason_name(r.finish_reason);
}

void ReplayReport::on_finished(const Request& r) {
  ++num_finished_;
  ++summary_.finish_reasons[outcome(r)];
  if (refused_at_admission(r)) {
    if (out_) write_line(r);
    return;  // no tokens processed, no latency
  }
  summary_.prompt_tokens += r.prompt_len;
  summary_.completion_tokens += r.num_output_tokens;
  const RequestIntervals iv = compute_intervals(r.timeline, r.num_output_tokens);
  add_if(ttft_, iv.ttft_s);
  add_if(request_ttft_, iv.prefill_s);
  add_if(queue_, iv.queue_s);
  add_if(prefill_, iv.prefill_s);
  add_if(decode_, iv.decode_s);
  add_if(e2e_, iv.e2e_s);
  add_if(tpot_, iv.tpot_s);
  if (out_) write_line(r);
}

void ReplayReport::write_line(const Request& r) {
  const PerRequestMetrics m = compute_per_request_metrics(r.timeline, r.num_output_tokens);
  std::string& s = line_;
  s.clear();
  s += "{\"id\":\"";
  append_escaped(s, r.external_id);
  s += "\",\"parent_id\":\"";
  append_escaped(s, r.parent_id);
  s += "\",\"arrival_s\":";
  s += json_number(nanos_to_seconds(r.timeline.arrival));
  s += ",\"finish_reason\":\"";
  s += outcome(r);
  s += "\",\"prompt_tokens\":";
  s += std::to_string(r.prompt_len);
  s += ",\"cached_tokens\":";
  s += std::to_string(std::max<int64_t>(r.num_cached_tokens, 0));
  s += ",\"completion_tokens\":";
  s += std::to_string(r.num_output_tokens);
  s += ",\"num_preemptions\":";
  s += std::to_string(r.timeline.num_preemptions);
  append_optional(s, "time_to_first_token_ms", m.time_to_first_token_ms);
  append_optional(s, "generation_time_ms", m.generation_time_ms);
  append_optional(s, "queue_time_ms", m.queue_time_ms);
  append_optional(s, "mean_itl_ms", m.mean_itl_ms);
  append_optional(s, "tokens_per_second", m.tokens_per_second);
  // The Prometheus-side figures, computed as the histograms observe them.
  const RequestIntervals iv = compute_intervals(r.timeline, r.num_output_tokens);
  append_optional(s, "ttft_from_arrival_s", iv.ttft_s);
  append_optional(s, "e2e_s", iv.e2e_s);
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(r.output_digest));
  s += ",\"output_digest\":\"";
  s += digest;
  s += "\"}\n";
  out_->write(s.data(), static_cast<std::streamsize>(s.size()));
}

ReplaySummary ReplayReport::finish(Nanos end_time, const EngineTotals& totals,
                                   int64_t trace_requests) {
  ReplaySummary& s = summary_;
  s.requests = trace_requests;
  s.sequences = totals.num_sequences;
  s.duration_s = nanos_to_seconds(end_time);
  if (s.duration_s > 0) {
    s.input_tokens_per_s = static_cast<double>(s.prompt_tokens) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(s.completion_tokens) / s.duration_s;
  }
  s.ttft = ttft_.summarize();
  s.request_ttft = request_ttft_.summarize();
  s.queue = queue_.summarize();
  s.prefill = prefill_.summarize();
  s.decode = decode_.summarize();
  s.e2e = e2e_.summarize();
  s.itl = itl_.summarize();
  s.tpot = tpot_.summarize();
  s.preemptions = totals.num_preemptions;
  s.prefix_queries = totals.prefix_queries;
  s.prefix_hits = totals.prefix_hits;
  s.prefix_hit_rate = totals.prefix_queries > 0 ? static_cast<double>(totals.prefix_hits) /
                                                      static_cast<double>(totals.prefix_queries)
                                                : 0.0;
  s.peak_waiting = totals.peak_waiting;
  s.steps = totals.num_steps;
  s.num_gpu_blocks = totals.num_gpu_blocks;
  return s;
}

namespace {

struct NamedDistribution {
  const char* key;
  const char* label;
  const Distribution* d;
};

std::vector<NamedDistribution> distributions(const ReplaySummary& s) {
  return {
      {"ttft_s", "TTFT, arrival to first token (Prometheus)", &s.ttft},
      {"request_ttft_s", "TTFT, scheduled to first token (per-request)", &s.request_ttft},
      {"queue_s", "Queue (queued to first scheduled)", &s.queue},
      {"prefill_s", "Prefill (scheduled to first token)", &s.prefill},
      {"decode_s", "Decode (first to last token)", &s.decode},
      {"e2e_s", "E2E (arrival to finish)", &s.e2e},
      {"itl_s", "ITL (every gap between a request's tokens)", &s.itl},
      {"tpot_s", "TPOT ((last - first) / (N - 1) per request)", &s.tpot},
  };
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string format_summary_table(const ReplaySummary& s) {
  std::string t;
  auto row = [&t](const std::string& label, const std::string& value) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-46s %s\n", label.c_str(), value.c_str());
    t += buf;
  };
  t += "============ llmsim replay summary ============\n";
  row("Requests (sequences)",
      std::to_string(s.requests) + " (" + std::to_string(s.sequences) + ")");
  std::string reasons;
  for (const auto& [name, count] : s.finish_reasons) {
    reasons += (reasons.empty() ? "" : ", ") + name + " " + std::to_string(count);
  }
  row("Finish reasons", reasons);
  row("Simulated duration (s)", fmt("%.3f", s.duration_s));
  row("Engine steps", std::to_string(s.steps));
  row("Input tokens", std::to_string(s.prompt_tokens));
  row("Output tokens", std::to_string(s.completion_tokens));
  row("Input token throughput (tok/s)", fmt("%.1f", s.input_tokens_per_s));
  row("Output token throughput (tok/s)", fmt("%.1f", s.output_tokens_per_s));
  char header[160];
  std::snprintf(header, sizeof header, "%-46s %10s %10s %10s %10s\n", "Latency (ms)", "mean", "p50",
                "p90", "p99");
  t += header;
  for (const auto& nd : distributions(s)) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%-46s %10.2f %10.2f %10.2f %10.2f\n", nd.label,
                  nd.d->mean * 1e3, nd.d->p50 * 1e3, nd.d->p90 * 1e3, nd.d->p99 * 1e3);
    t += buf;
  }
  row("Preemptions", std::to_string(s.preemptions));
  row("Prefix-cache hit rate (tokens)", fmt("%.2f%%", s.prefix_hit_rate * 100));
  row("Peak KV-cache usage", fmt("%.2f%%", s.peak_kv_usage * 100));
  row("Peak waiting requests", std::to_string(s.peak_waiting));
  row("KV-cache blocks", std::to_string(s.num_gpu_blocks));
  if (!s.per_engine.empty()) {
    char header_row[200];
    std::snprintf(header_row, sizeof header_row, "%-7s %9s %11s %10s %10s %10s %8s %8s %8s %8s\n",
                  "Engine", "Seqs", "Out tok/s", "TTFT p50", "TTFT p99", "ITL p50", "Preempt",
                  "Hit %", "Peak KV%", "Peak wait");
    t += "Per engine (latencies in ms)\n";
    t += header_row;
    for (size_t i = 0; i < s.per_engine.size(); ++i) {
      const ReplaySummary& e = s.per_engine[i];
      char buf[200];
      std::snprintf(
          buf, sizeof buf, "%-7zu %9lld %11.1f %10.2f %10.2f %10.2f %8lld %8.2f %8.2f %8lld\n", i,
          static_cast<long long>(e.sequences), e.output_tokens_per_s, e.ttft.p50 * 1e3,
          e.ttft.p99 * 1e3, e.itl.p50 * 1e3, static_cast<long long>(e.preemptions),
          e.prefix_hit_rate * 100, e.peak_kv_usage * 100, static_cast<long long>(e.peak_waiting));
      t += buf;
    }
  }
  t += "================================================\n";
  return t;
}

namespace {

std::string summary_json(const ReplaySummary& s, const std::string& indent) {
  std::string j = "{\n";
  const std::string in = indent + "  ";
  auto field = [&](const std::string& key, const std::string& value) {
    j += in + "\"" + key + "\": " + value + ",\n";
  };
  field("requests", std::to_string(s.requests));
  field("sequences", std::to_string(s.sequences));
  std::string reasons = "{";
  for (const auto& [name, count] : s.finish_reasons) {
    reasons += (reasons.size() > 1 ? ", \"" : "\"") + name + "\": " + std::to_string(count);
  }
  field("finish_reasons", reasons + "}");
  field("duration_s", json_number(s.duration_s));
  field("steps", std::to_string(s.steps));
  field("prompt_tokens", std::to_string(s.prompt_tokens));
  field("completion_tokens", std::to_string(s.completion_tokens));
  field("input_tokens_per_s", json_number(s.input_tokens_per_s));
  field("output_tokens_per_s", json_number(s.output_tokens_per_s));
  for (const auto& nd : distributions(s)) {
    const Distribution& d = *nd.d;
    field(nd.key, "{\"count\": " + std::to_string(d.count) + ", \"mean\": " + json_number(d.mean) +
                      ", \"p50\": " + json_number(d.p50) + ", \"p90\": " + json_number(d.p90) +
                      ", \"p99\": " + json_number(d.p99) + ", \"max\": " + json_number(d.max) +
                      "}");
  }
  field("preemptions", std::to_string(s.preemptions));
  field("prefix_cache_queries", std::to_string(s.prefix_queries));
  field("prefix_cache_hits", std::to_string(s.prefix_hits));
  field("prefix_cache_hit_rate", json_number(s.prefix_hit_rate));
  field("peak_kv_usage", json_number(s.peak_kv_usage));
  field("peak_waiting", std::to_string(s.peak_waiting));
  if (!s.per_engine.empty()) {
    std::string engines = "[";
    for (size_t i = 0; i < s.per_engine.size(); ++i) {
      engines += (i ? ", " : "") + summary_json(s.per_engine[i], in);
    }
    field("engines", engines + "]");
  }
  j += in + "\"num_gpu_blocks\": " + std::to_string(s.num_gpu_blocks) + "\n" + indent + "}";
  return j;
}

}  // namespace

std::string format_summary_json(const ReplaySummary& s) { return summary_json(s, "") + "\n"; }

}  // namespace llm
