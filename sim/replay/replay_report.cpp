#include "sim/replay/replay_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <tuple>
#include <utility>

#include "core/request_metrics.h"
#include "sim/replay/summary_figures.h"

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

void add_if(SampleCollector& samples, const std::optional<double>& v) {
  if (v) samples.add(*v);
}

}  // namespace

int64_t failed_sequences(const ReplaySummary& s) {
  int64_t failed = 0;
  for (const char* reason : {"rejected", "error"}) {
    const auto it = s.finish_reasons.find(reason);
    if (it != s.finish_reasons.end()) failed += it->second;
  }
  return failed;
}

double error_rate(const ReplaySummary& s) {
  return s.sequences > 0
             ? static_cast<double>(failed_sequences(s)) / static_cast<double>(s.sequences)
             : 0.0;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  std::string s(buf, res.ptr);
  // Keep it a JSON float when it reads like an integer, so consumers see one type per field.
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

ReplayReport::ReplayReport(std::ostream* requests_out, size_t samples_in_memory)
    : out_(requests_out),
      area_(std::make_shared<SpillArea>(samples_in_memory)),
      outcomes_(area_),
      ttft_(area_),
      request_ttft_(area_),
      queue_(area_),
      prefill_(area_),
      decode_(area_),
      e2e_(area_),
      tpot_(area_),
      client_ttft_(area_),
      client_e2e_(area_) {
  for (const char* reason : {"stop", "length", "abort", "error", "rejected"})
    summary_.finish_reasons[reason] = 0;
}

void ReplayReport::on_token(const Request&, Nanos, Nanos itl_ns) {
  if (itl_ns != kNoTime) itl_.add(nanos_to_seconds(itl_ns));
}

void ReplayReport::on_tokens(std::span<const TokenEvent> tokens, Nanos) {
  for (const TokenEvent& t : tokens) {
    if (t.itl_ns != kNoTime) itl_.add(nanos_to_seconds(t.itl_ns));
  }
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

void ReplayReport::note_client_times(const Request& r, const ClientTimes& times) {
  client_of_ = &r;
  client_ = times;
}

// The inter-token gaps a sequence would have made: its scripted output length (capped by
// max_tokens) less one, at least one.
int64_t expected_gaps(const Request& r) {
  int64_t tokens = r.scripted_output_len > 0 ? r.scripted_output_len : 1;
  if (r.params.max_tokens > 0) tokens = std::min(tokens, r.params.max_tokens);
  return std::max<int64_t>(1, tokens - 1);
}

void ReplayReport::on_finished(const Request& r) {
  ++num_finished_;
  ++summary_.finish_reasons[outcome(r)];
  const ClientTimes* client = client_of_ == &r ? &client_ : nullptr;
  client_of_ = nullptr;
  SequenceOutcome seq;
  seq.completed =
      r.finish_reason == FinishReason::kStop || r.finish_reason == FinishReason::kLength;
  if (r.finish_reason == FinishReason::kError) {
    ++failed_;
    failed_gaps_ += expected_gaps(r);
  }
  if (refused_at_admission(r)) {
    seq.completed = false;
    outcomes_.push_back(seq);
    if (out_) write_line(r, nullptr, outcome(r));
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
  if (client) {
    if (client->first_token != kNoTime) {
      client_ttft_.add(nanos_to_seconds(client->first_token - client->server_arrival));
    }
    client_e2e_.add(nanos_to_seconds(client->finished - client->server_arrival));
  }
  seq.ttft_s = iv.ttft_s.value_or(0);
  seq.tpot_s = iv.tpot_s.value_or(0);
  seq.e2e_s = iv.e2e_s.value_or(0);
  outcomes_.push_back(seq);
  if (out_) write_line(r, client, outcome(r));
}

void ReplayReport::on_failed_request(const TraceRequest& entry, size_t index, Nanos time) {
  const std::unique_ptr<Request> parent = make_request(entry, index);
  for (const std::unique_ptr<Request>& child : fan_out(*parent)) {
    child->finish_reason = FinishReason::kError;
    child->timeline.finished = time;
    ++num_finished_;
    ++failed_sequences_;
    ++summary_.finish_reasons["error"];
    ++failed_;
    failed_gaps_ += expected_gaps(*child);
    outcomes_.push_back(SequenceOutcome{});  // not completed
    if (out_) write_line(*child, nullptr, "error");
  }
}

void ReplayReport::write_line(const Request& r, const ClientTimes* client, const char* outcome) {
  const PerRequestMetrics m = compute_per_request_metrics(r.timeline, r.num_output_tokens);
  std::string& s = line_;
  s.clear();
  s += "{\"id\":\"";
  append_escaped(s, r.external_id);
  s += "\",\"parent_id\":\"";
  append_escaped(s, r.parent_id);
  s += "\",\"arrival_s\":";
  s += json_number(nanos_to_seconds(client ? client->server_arrival : r.timeline.arrival));
  s += ",\"finish_reason\":\"";
  s += outcome;
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
  // Without the API server: the Prometheus-side figures, computed as the histograms observe them;
  // with it, what the client measures from the moment the request reached the server.
  const RequestIntervals iv = compute_intervals(r.timeline, r.num_output_tokens);
  if (client) {
    append_optional(
        s, "ttft_from_arrival_s",
        client->first_token == kNoTime
            ? std::nullopt
            : std::optional(nanos_to_seconds(client->first_token - client->server_arrival)));
    append_optional(s, "e2e_s", nanos_to_seconds(client->finished - client->server_arrival));
  } else {
    append_optional(s, "ttft_from_arrival_s", iv.ttft_s);
    append_optional(s, "e2e_s", iv.e2e_s);
  }
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(r.output_digest));
  s += ",\"output_digest\":\"";
  s += digest;
  s += "\"}\n";
  out_->write(s.data(), static_cast<std::streamsize>(s.size()));
}

void ReplayReport::reserve(int64_t sequences) {
  const auto n = static_cast<size_t>(std::max<int64_t>(sequences, 0));
  for (SampleCollector* s : {&ttft_, &request_ttft_, &queue_, &prefill_, &decode_, &e2e_, &tpot_}) {
    s->reserve(n);
  }
  outcomes_.reserve(n);
}

ReplaySummary ReplayReport::finish(Nanos end_time, const EngineTotals& totals,
                                   int64_t trace_requests) {
  ReplaySummary& s = summary_;
  s.requests = trace_requests;
  s.sequences = totals.num_sequences + failed_sequences_;
  s.duration_s = nanos_to_seconds(end_time);
  if (s.duration_s > 0) {
    s.input_tokens_per_s = static_cast<double>(s.prompt_tokens) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(s.completion_tokens) / s.duration_s;
  }
  auto samples = std::make_shared<LatencySamples>();
  // Sorted (merged on disk when they spilled) once, for the figures and for later percentiles.
  const std::tuple<const char*, SampleCollector*, Distribution*> sorted[] = {
      {"ttft", &ttft_, &s.ttft},       {"request_ttft", &request_ttft_, &s.request_ttft},
      {"queue", &queue_, &s.queue},    {"prefill", &prefill_, &s.prefill},
      {"decode", &decode_, &s.decode}, {"e2e", &e2e_, &s.e2e},
      {"tpot", &tpot_, &s.tpot}};
  for (const auto& [name, values, figures] : sorted) {
    samples->sorted[name] = values->finish(figures);
  }
  // The API server's client view, for any percentile of its rows.
  const bool client_view = !client_e2e_.empty();
  SortedSamples client_ttft = client_ttft_.finish(&s.client_ttft);
  SortedSamples client_e2e = client_e2e_.finish(&s.client_e2e);
  if (client_view) {
    samples->sorted["client_ttft"] = std::move(client_ttft);
    samples->sorted["client_e2e"] = std::move(client_e2e);
  }
  s.itl = itl_.summarize();
  s.preemptions = totals.num_preemptions;
  s.prefix_queries = totals.prefix_queries;
  s.prefix_hits = totals.prefix_hits;
  s.prefix_hit_rate = totals.prefix_queries > 0 ? static_cast<double>(totals.prefix_hits) /
                                                      static_cast<double>(totals.prefix_queries)
                                                : 0.0;
  s.peak_waiting = totals.peak_waiting;
  s.steps = totals.num_steps;
  s.num_gpu_blocks = totals.num_gpu_blocks;
  samples->itl = itl_;
  samples->outcomes = std::move(outcomes_);
  outcomes_ = SequenceOutcomes(area_);
  samples_ = samples;
  samples->failed = failed_;
  samples->failed_gaps = failed_gaps_;
  s.samples = std::move(samples);
  return s;
}

namespace {

struct NamedDistribution {
  const char* key;
  const char* name;  // summary_figures.h's
  const char* label;
  const Distribution* d;
};

std::vector<NamedDistribution> distributions(const ReplaySummary& s) {
  std::vector<NamedDistribution> all = {
      {"ttft_s", "ttft", "TTFT, arrival to first token (Prometheus)", &s.ttft},
      {"request_ttft_s", "request_ttft", "TTFT, scheduled to first token (per-request)",
       &s.request_ttft},
      {"queue_s", "queue", "Queue (queued to first scheduled)", &s.queue},
      {"prefill_s", "prefill", "Prefill (scheduled to first token)", &s.prefill},
      {"decode_s", "decode", "Decode (first to last token)", &s.decode},
      {"e2e_s", "e2e", "E2E (arrival to finish)", &s.e2e},
      {"itl_s", "itl", "ITL (every gap between a request's tokens)", &s.itl},
      {"tpot_s", "tpot", "TPOT ((last - first) / (N - 1) per request)", &s.tpot},
  };
  if (s.client_e2e.count > 0) {  // the API server modelled
    all.push_back({"client_ttft_s", "client_ttft", "TTFT, client (at the server to first token)",
                   &s.client_ttft});
    all.push_back(
        {"client_e2e_s", "client_e2e", "E2E, client (at the server to last chunk)", &s.client_e2e});
  }
  return all;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

constexpr double kDefaultPercentiles[] = {50, 90, 95, 99, 99.9};

// The percentile levels the table shows: --metric-percentiles, or the default set.
std::vector<double> shown_percentiles(const ReplaySummary& s) {
  if (!s.metric_percentiles.empty()) return s.metric_percentiles;
  return {std::begin(kDefaultPercentiles), std::end(kDefaultPercentiles)};
}

// A distribution's percentile: its field for the fixed levels, else from the samples.
double percentile_of(const ReplaySummary& s, const NamedDistribution& nd, double level) {
  const std::string key = std::string(nd.name) + "_" + percentile_name(level);
  if (const std::optional<double> v = summary_figure(s, key)) return *v;
  // The client's distributions (the API server's) are not summary figures: from their samples.
  return s.samples ? latency_percentile(*s.samples, nd.name, level, false) : NAN;
}

// A time unit that keeps every value of a row under 10,000: ms, s, or min.
struct TimeUnit {
  const char* name;
  double per_second;
};

TimeUnit unit_for(double largest_s) {
  if (largest_s * 1e3 < 1e4) return {"ms", 1e3};
  if (largest_s < 1e4) return {"s", 1.0};
  return {"min", 1.0 / 60};
}

}  // namespace

std::string format_summary_table(const ReplaySummary& s) {
  std::string t;
  auto row = [&t](const std::string& label, const std::string& value) {
    char buf[400];
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
  const int64_t failed = failed_sequences(s);
  if (failed > 0) {
    row("Refused or failed", std::to_string(failed) + " of " + std::to_string(s.sequences) +
                                 " sequences (" + fmt("%.2f%%", error_rate(s) * 100) +
                                 "): no latency below; an SLO counts them as missed");
  }
  if (s.load.scaled()) row("Load scaling", describe_load_scaling(s.load));
  row("Simulated duration (s)", fmt("%.3f", s.duration_s));
  row("Engine steps", std::to_string(s.steps));
  row("Input tokens", std::to_string(s.prompt_tokens));
  row("Output tokens", std::to_string(s.completion_tokens));
  row("Input token throughput (tok/s)", fmt("%.1f", s.input_tokens_per_s));
  row("Output token throughput (tok/s)", fmt("%.1f", s.output_tokens_per_s));
  if (s.goodput.any() && s.samples) {
    const int64_t good = good_sequences(*s.samples, s.goodput);
    row("Goodput (" + describe_goodput(s.goodput) + ")",
        fmt("%.3f", s.duration_s > 0 ? static_cast<double>(good) / s.duration_s : 0.0) +
            " req/s; attainment " + fmt("%.2f%%", attainment(*s.samples, s.goodput) * 100) + " (" +
            std::to_string(good) + " of " + std::to_string(s.samples->outcomes.size()) +
            " sequences)");
  }
  // The latency rows: n, mean, the percentiles, each row in its own unit.
  const std::vector<double> levels = shown_percentiles(s);
  char header[400];
  int used = std::snprintf(header, sizeof header, "%-46s %8s %9s", "Latency", "n", "mean");
  for (double level : levels) {
    used += std::snprintf(header + used, sizeof header - static_cast<size_t>(used), " %9s",
                          percentile_name(level).c_str());
  }
  std::snprintf(header + used, sizeof header - static_cast<size_t>(used), "  unit\n");
  t += header;
  for (const auto& nd : distributions(s)) {
    std::vector<double> values = {nd.d->mean};
    for (double level : levels) values.push_back(percentile_of(s, nd, level));
    double largest = 0;
    for (double v : values) {
      if (std::isfinite(v)) largest = std::max(largest, v);
    }
    const TimeUnit unit = unit_for(largest);
    char label[64];
    std::snprintf(label, sizeof label, "%-46s %8lld", nd.label,
                  static_cast<long long>(nd.d->count));
    std::string line = label;
    for (double v : values) line += fmt(" %9.2f", v * unit.per_second);
    t += line + "  " + unit.name + "\n";
  }
  row("Preemptions", std::to_string(s.preemptions));
  row("Prefix-cache hit rate (tokens)", fmt("%.2f%%", s.prefix_hit_rate * 100));
  row("Peak KV-cache usage (any engine step)", fmt("%.2f%%", s.peak_kv_usage * 100));
  row("Peak waiting requests", std::to_string(s.peak_waiting));
  row("Overload", describe_overload(s.overload));
  row("KV-cache blocks", std::to_string(s.num_gpu_blocks));
  if (!s.per_engine.empty()) {
    double largest = 0;
    for (const ReplaySummary& e : s.per_engine) {
      largest = std::max({largest, e.ttft.p50, e.ttft.p99, e.itl.p50});
    }
    const TimeUnit unit = unit_for(largest);
    char header_row[200];
    std::snprintf(header_row, sizeof header_row,
                  "%-7s %9s %11s %10s %10s %10s %8s %8s %8s %9s %s\n", "Engine", "Seqs",
                  "Out tok/s", "TTFT p50", "TTFT p99", "ITL p50", "Preempt", "Hit %", "Peak KV%",
                  "Peak wait", "Overload");
    t += std::string("Per engine (latencies in ") + unit.name + ")\n";
    t += header_row;
    for (size_t i = 0; i < s.per_engine.size(); ++i) {
      const ReplaySummary& e = s.per_engine[i];
      char buf[240];
      std::snprintf(
          buf, sizeof buf, "%-7zu %9lld %11.1f %10.2f %10.2f %10.2f %8lld %8.2f %8.2f %9lld %s\n",
          i, static_cast<long long>(e.sequences), e.output_tokens_per_s,
          e.ttft.p50 * unit.per_second, e.ttft.p99 * unit.per_second, e.itl.p50 * unit.per_second,
          static_cast<long long>(e.preemptions), e.prefix_hit_rate * 100, e.peak_kv_usage * 100,
          static_cast<long long>(e.peak_waiting),
          e.overload.unstable ? ("unstable from " + fmt("%.1f", e.overload.since_s) + " s").c_str()
                              : "stable");
      t += buf;
    }
  }
  t += "================================================\n";
  return t;
}

namespace {

std::string distribution_json(const ReplaySummary& s, const NamedDistribution& nd, bool top_level) {
  const Distribution& d = *nd.d;
  std::string j = "{\"count\": " + std::to_string(d.count) + ", \"mean\": " + json_number(d.mean) +
                  ", \"p50\": " + json_number(d.p50) + ", \"p90\": " + json_number(d.p90) +
                  ", \"p95\": " + json_number(d.p95) + ", \"p99\": " + json_number(d.p99) +
                  ", \"p99.9\": " + json_number(d.p999) + ", \"max\": " + json_number(d.max);
  if (top_level) {
    for (double level : s.metric_percentiles) {
      const std::string name = percentile_name(level);
      if (j.find("\"" + name + "\"") != std::string::npos) continue;
      j += ", \"" + name + "\": " + json_number(percentile_of(s, nd, level));
    }
  }
  return j + "}";
}

std::string overload_json(const OverloadFigures& o) {
  return std::string("{\"unstable\": ") + (o.unstable ? "true" : "false") +
         ", \"since_s\": " + (o.unstable ? json_number(o.since_s) : "null") +
         ", \"waiting_at_last_arrival\": " + std::to_string(o.waiting_at_end) +
         ", \"waiting_growth_per_s\": " + json_number(o.growth_per_s) + "}";
}

std::string load_json(const LoadScalingInfo& l) {
  return std::string("{\"mode\": \"") + load_scaling_mode_name(l.mode) +
         "\", \"arrival_rate_scale\": " + json_number(l.factor) + ", \"loop_to_s\": " +
         (l.loop_to_ns > 0 ? json_number(static_cast<double>(l.loop_to_ns) * 1e-9) : "null") +
         ", \"trace_requests\": " + std::to_string(l.trace_requests) +
         ", \"replayed_requests\": " + std::to_string(l.replayed_requests) +
         ", \"trace_arrival_instants\": " + std::to_string(l.bursts.instants) +
         ", \"largest_burst\": " + std::to_string(l.bursts.largest) + "}";
}

std::string goodput_json(const ReplaySummary& s) {
  std::string targets = "{";
  const auto add = [&targets](const char* key, const std::optional<double>& v) {
    if (!v) return;
    targets += std::string(targets.size() > 1 ? ", \"" : "\"") + key + "_s\": " + json_number(*v);
  };
  add("ttft", s.goodput.ttft_s);
  add("tpot", s.goodput.tpot_s);
  add("e2e", s.goodput.e2e_s);
  const int64_t good = good_sequences(*s.samples, s.goodput);
  return "{\"targets\": " + targets + "}, \"good_sequences\": " + std::to_string(good) +
         ", \"attainment\": " + json_number(attainment(*s.samples, s.goodput)) +
         ", \"requests_per_s\": " +
         json_number(s.duration_s > 0 ? static_cast<double>(good) / s.duration_s : 0.0) + "}";
}

// Each --fault window: its spec, kind, parameters, window and the seconds of it inside the run.
std::string faults_json(const ReplaySummary& s) {
  std::string j = "[";
  for (const FaultWindow& f : s.faults) {
    if (j.size() > 1) j += ", ";
    j += "{\"spec\": \"" + fault_spec_text(f) + "\", \"kind\": \"" + fault_kind_name(f.kind) + "\"";
    if (f.kind != FaultKind::kHttp5xx) j += ", \"engine\": " + std::to_string(f.engine);
    if (f.kind == FaultKind::kHttp5xx) j += ", \"percent\": " + json_number(f.percent);
    if (f.kind == FaultKind::kSlow) j += ", \"factor\": " + json_number(f.factor);
    const double active = fault_active_s(f, s.duration_s);
    j += ", \"from_s\": " + json_number(static_cast<double>(f.from_ns) * 1e-9) +
         ", \"to_s\": " + json_number(static_cast<double>(f.to_ns) * 1e-9) +
         ", \"active_s\": " + json_number(active) +
         ", \"ran\": " + (active > 0 ? "true" : "false") + "}";
  }
  return j + "]";
}

std::string summary_json(const ReplaySummary& s, const std::string& indent, bool top_level) {
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
  field("error_rate", json_number(error_rate(s)));
  field("duration_s", json_number(s.duration_s));
  field("steps", std::to_string(s.steps));
  field("prompt_tokens", std::to_string(s.prompt_tokens));
  field("completion_tokens", std::to_string(s.completion_tokens));
  field("input_tokens_per_s", json_number(s.input_tokens_per_s));
  field("output_tokens_per_s", json_number(s.output_tokens_per_s));
  if (top_level && s.goodput.any() && s.samples) field("goodput", goodput_json(s));
  for (const auto& nd : distributions(s)) field(nd.key, distribution_json(s, nd, top_level));
  field("preemptions", std::to_string(s.preemptions));
  field("prefix_cache_queries", std::to_string(s.prefix_queries));
  field("prefix_cache_hits", std::to_string(s.prefix_hits));
  field("prefix_cache_hit_rate", json_number(s.prefix_hit_rate));
  field("peak_kv_usage", json_number(s.peak_kv_usage));
  field("peak_waiting", std::to_string(s.peak_waiting));
  field("overload", overload_json(s.overload));
  if (top_level) field("load_scaling", load_json(s.load));
  if (top_level && !s.faults.empty()) field("faults", faults_json(s));
  if (!s.per_engine.empty()) {
    std::string engines = "[";
    for (size_t i = 0; i < s.per_engine.size(); ++i) {
      engines += (i ? ", " : "") + summary_json(s.per_engine[i], in, false);
    }
    field("engines", engines + "]");
  }
  j += in + "\"num_gpu_blocks\": " + std::to_string(s.num_gpu_blocks) + "\n" + indent + "}";
  return j;
}

}  // namespace

std::string format_summary_json(const ReplaySummary& s) { return summary_json(s, "", true) + "\n"; }

}  // namespace llm
