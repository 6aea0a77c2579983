#include "loadgen/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "sim/replay/goodput.h"

namespace llm::loadgen {
namespace {

constexpr double kNsPerMs = 1e6;

// The SLOs in seconds, for the goodput rule llmsim shares (sim/replay/goodput.h).
GoodputTargets goodput_targets(const Slos& slos) {
  GoodputTargets t;
  if (slos.ttft_ms) t.ttft_s = *slos.ttft_ms / 1e3;
  if (slos.tpot_ms) t.tpot_s = *slos.tpot_ms / 1e3;
  if (slos.e2e_ms) t.e2e_s = *slos.e2e_ms / 1e3;
  return t;
}

LatencyStats summarize(std::vector<double>& values_ms) {
  LatencyStats s;
  s.count = static_cast<int64_t>(values_ms.size());
  if (values_ms.empty()) return s;
  double sum = 0;
  for (double v : values_ms) sum += v;
  const double mean = sum / static_cast<double>(values_ms.size());
  double sq = 0;
  for (double v : values_ms) sq += (v - mean) * (v - mean);
  s.std = std::sqrt(sq / static_cast<double>(values_ms.size()));  // numpy's std (ddof 0)
  ExactSamples samples;
  for (double v : values_ms) samples.add(v);
  const Distribution d = samples.summarize();
  s.mean = d.mean;
  s.median = d.p50;
  s.p90 = d.p90;
  s.p99 = d.p99;
  s.max = d.max;
  return s;
}

double parse_ms(const std::string& item, const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v) || v < 0)
    throw std::invalid_argument("bad SLO '" + item +
                                "': expected KEY:MILLISECONDS with a number >= 0");
  return v;
}

}  // namespace

void parse_slo(const std::string& item, Slos& slos) {
  const size_t colon = item.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("bad SLO '" + item +
                                "': expected KEY:MILLISECONDS (ttft, tpot, e2e)");
  const std::string key = item.substr(0, colon);
  const double v = parse_ms(item, item.substr(colon + 1));
  if (key == "ttft") {
    slos.ttft_ms = v;
  } else if (key == "tpot") {
    slos.tpot_ms = v;
  } else if (key == "e2e" || key == "e2el") {
    slos.e2e_ms = v;
  } else {
    throw std::invalid_argument("bad SLO '" + item + "': unknown key '" + key +
                                "' (use ttft, tpot or e2e)");
  }
}

double request_tpot_ms(const RequestResult& r) {
  if (r.output_tokens <= 1) return 0;
  return static_cast<double>(r.e2e_ns - r.ttft_ns) / kNsPerMs /
         static_cast<double>(r.output_tokens - 1);
}

BenchReport compute_report(const std::vector<RequestResult>& results, double duration_s,
                           const Slos& slos, size_t errors_kept) {
  BenchReport rep;
  rep.duration_s = duration_s;
  std::vector<double> ttft, tpot, itl, e2e;
  std::map<std::string, int64_t> counts;
  for (const RequestResult& r : results) {
    if (!r.success) {
      ++rep.failed;
      if (rep.errors.size() < errors_kept) rep.errors.push_back(r.error);
      ++counts[r.error];
      continue;
    }
    ++rep.completed;
    rep.total_input_tokens += r.prompt_tokens;
    rep.total_output_tokens += r.output_tokens;
    rep.total_content_chunks += r.content_chunks;
    const double ttft_ms = static_cast<double>(r.ttft_ns) / kNsPerMs;
    const double e2e_ms = static_cast<double>(r.e2e_ns) / kNsPerMs;
    const double tpot_ms = request_tpot_ms(r);
    ttft.push_back(ttft_ms);
    e2e.push_back(e2e_ms);
    if (r.output_tokens > 1) tpot.push_back(tpot_ms);
    for (int64_t g : r.itl_ns) itl.push_back(static_cast<double>(g) / kNsPerMs);
    if (slos.any() &&
        meets_goodput(goodput_targets(slos), ttft_ms / 1e3, tpot_ms / 1e3, e2e_ms / 1e3)) {
      ++rep.good_requests;
    }
  }
  rep.ttft = summarize(ttft);
  rep.tpot = summarize(tpot);
  rep.itl = summarize(itl);
  rep.e2e = summarize(e2e);
  if (duration_s > 0) {
    rep.request_throughput = static_cast<double>(rep.completed) / duration_s;
    rep.output_throughput = static_cast<double>(rep.total_output_tokens) / duration_s;
    rep.total_token_throughput =
        static_cast<double>(rep.total_input_tokens + rep.total_output_tokens) / duration_s;
    if (slos.any()) rep.request_goodput = static_cast<double>(rep.good_requests) / duration_s;
  } else if (slos.any()) {
    rep.request_goodput = 0;
  }
  rep.error_counts.assign(counts.begin(), counts.end());
  std::stable_sort(rep.error_counts.begin(), rep.error_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return rep;
}

namespace {

void line(std::ostream& out, const char* label, double v, int decimals = 2) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-40s %-10.*f\n", label, decimals, v);
  out << buf;
}

void line(std::ostream& out, const char* label, int64_t v) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-40s %-10lld\n", label, static_cast<long long>(v));
  out << buf;
}

void header(std::ostream& out, const std::string& title, char fill) {
  constexpr size_t kWidth = 50;
  const size_t pad = title.size() + 2 >= kWidth ? 0 : kWidth - title.size() - 2;
  out << std::string(pad / 2, fill) << ' ' << title << ' ' << std::string(pad - pad / 2, fill)
      << '\n';
}

void latency_block(std::ostream& out, const std::string& title, const std::string& name,
                   const std::string& definition, const LatencyStats& s) {
  header(out, title, '-');
  out << "  (" << definition << ")\n";
  line(out, ("Mean " + name + " (ms):").c_str(), s.mean);
  line(out, ("Median " + name + " (ms):").c_str(), s.median);
  line(out, ("P90 " + name + " (ms):").c_str(), s.p90);
  line(out, ("P99 " + name + " (ms):").c_str(), s.p99);
}

}  // namespace

constexpr const char* kTtftDef = "client TTFT: request sent -> first chunk with non-empty text";
constexpr const char* kTpotDef =
    "per request (E2E - TTFT) / (output tokens - 1); requests with > 1 token";
constexpr const char* kItlDef = "every gap between two consecutive content chunks of a request";
constexpr const char* kE2eDef =
    "request sent -> last content chunk (non-streaming: -> end of response)";

void print_report(const BenchReport& r, const Slos& slos, std::ostream& out) {
  header(out, "Serving Benchmark Result", '=');
  line(out, "Successful requests:", r.completed);
  line(out, "Failed requests:", r.failed);
  line(out, "Maximum requests in flight:", r.max_in_flight);
  line(out, "Benchmark duration (s):", r.duration_s);
  line(out, "Total input tokens:", r.total_input_tokens);
  line(out, "Total generated tokens:", r.total_output_tokens);
  line(out, "Total content chunks:", r.total_content_chunks);
  line(out, "Request throughput (req/s):", r.request_throughput);
  if (r.request_goodput) {
    line(out, "Request goodput (req/s):", *r.request_goodput);
    std::string s = "  (completed requests per second meeting";
    auto ms = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", v);
      return std::string(buf);
    };
    if (slos.ttft_ms) s += " TTFT <= " + ms(*slos.ttft_ms) + " ms";
    if (slos.tpot_ms) s += " TPOT <= " + ms(*slos.tpot_ms) + " ms";
    if (slos.e2e_ms) s += " E2E <= " + ms(*slos.e2e_ms) + " ms";
    out << s << ")\n";
  }
  line(out, "Output token throughput (tok/s):", r.output_throughput);
  line(out, "Total token throughput (tok/s):", r.total_token_throughput);
  latency_block(out, "Time to First Token", "TTFT", kTtftDef, r.ttft);
  latency_block(out, "Time per Output Token (excl. 1st token)", "TPOT", kTpotDef, r.tpot);
  latency_block(out, "Inter-token Latency", "ITL", kItlDef, r.itl);
  latency_block(out, "End-to-end Latency", "E2E", kE2eDef, r.e2e);
  out << std::string(50, '=') << '\n';
  if (r.failed > 0) {
    out << "Errors (most frequent first):\n";
    size_t shown = 0;
    for (const auto& [msg, n] : r.error_counts) {
      if (shown++ == 5) break;
      out << "  " << n << " x " << msg << '\n';
    }
  }
}

nlohmann::json report_to_json(const BenchReport& r, const Slos& slos) {
  nlohmann::json j;
  j["completed"] = r.completed;
  j["failed"] = r.failed;
  j["max_in_flight"] = r.max_in_flight;
  j["duration"] = r.duration_s;
  j["total_input_tokens"] = r.total_input_tokens;
  j["total_output_tokens"] = r.total_output_tokens;
  j["total_content_chunks"] = r.total_content_chunks;
  j["request_throughput"] = r.request_throughput;
  j["request_goodput"] = r.request_goodput ? nlohmann::json(*r.request_goodput) : nlohmann::json();
  j["good_requests"] = r.good_requests;
  j["output_throughput"] = r.output_throughput;
  j["total_token_throughput"] = r.total_token_throughput;
  const std::pair<const char*, const LatencyStats*> blocks[] = {
      {"ttft", &r.ttft}, {"tpot", &r.tpot}, {"itl", &r.itl}, {"e2el", &r.e2e}};
  for (const auto& [name, s] : blocks) {
    const std::string n = name;
    j["mean_" + n + "_ms"] = s->mean;
    j["std_" + n + "_ms"] = s->std;
    j["median_" + n + "_ms"] = s->median;
    j["p90_" + n + "_ms"] = s->p90;
    j["p99_" + n + "_ms"] = s->p99;
    j["max_" + n + "_ms"] = s->max;
    j["count_" + n] = s->count;
  }
  nlohmann::json s = nlohmann::json::object();
  if (slos.ttft_ms) s["ttft"] = *slos.ttft_ms;
  if (slos.tpot_ms) s["tpot"] = *slos.tpot_ms;
  if (slos.e2e_ms) s["e2el"] = *slos.e2e_ms;
  j["goodput_slos_ms"] = s;
  j["definitions"] = {{"ttft", kTtftDef},
                      {"tpot", kTpotDef},
                      {"itl", kItlDef},
                      {"e2el", kE2eDef},
                      {"request_goodput", "completed requests per second meeting every SLO"}};
  j["errors"] = r.errors;
  nlohmann::json counts = nlohmann::json::array();
  for (const auto& [msg, n] : r.error_counts) counts.push_back({{"message", msg}, {"count", n}});
  j["error_counts"] = counts;
  return j;
}

}  // namespace llm::loadgen
