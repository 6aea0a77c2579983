#include "calibrate/api_probe.h"

#include <algorithm>
#include <stdexcept>

#include "calibrate/prometheus_text.h"
#include "loadgen/http_get.h"

namespace llm {
namespace {

struct ProbeSums {
  double ttft = 0, queue = 0, prefill = 0, count = 0;
  std::string text;  // the /metrics text they came from
};

ProbeSums read_probe_sums(const loadgen::BenchConfig& target) {
  const loadgen::HttpGetResult r = loadgen::http_get(target, "/metrics");
  if (r.status != 200) {
    throw std::runtime_error("GET /metrics answered HTTP " + std::to_string(r.status) +
                             ": the API-server probe needs the server's vLLM histograms");
  }
  auto total = [&r](const char* name) {
    const std::optional<double> v = metric_total(r.body, name);
    if (!v) {
      throw std::runtime_error(std::string("/metrics has no ") + name +
                               ": the API-server probe needs it");
    }
    return *v;
  };
  return {total("vllm:time_to_first_token_seconds_sum"),
          total("vllm:request_queue_time_seconds_sum"),
          total("vllm:request_prefill_time_seconds_sum"),
          total("vllm:time_to_first_token_seconds_count"), r.body};
}

}  // namespace

ApiServerCosts fit_api_costs(const std::vector<ApiProbeLength>& lengths) {
  if (lengths.empty()) throw std::invalid_argument("fit_api_costs: no measured lengths");
  double mx = 0, my = 0, response = 0;
  for (const ApiProbeLength& l : lengths) {
    mx += static_cast<double>(l.prompt_len);
    my += l.hop_ms * 1e6;
    response += l.response_ms * 1e6;
  }
  const double k = static_cast<double>(lengths.size());
  mx /= k;
  my /= k;
  double sxy = 0, sxx = 0;
  for (const ApiProbeLength& l : lengths) {
    const double dx = static_cast<double>(l.prompt_len) - mx;
    sxy += dx * (l.hop_ms * 1e6 - my);
    sxx += dx * dx;
  }
  ApiServerCosts c;
  c.per_prompt_token_ns = std::max(0.0, sxx > 0 ? sxy / sxx : 0.0);
  c.hop_ns = std::max(0.0, my - c.per_prompt_token_ns * mx);
  c.response_ns = std::max(0.0, response / k);
  return c;
}

ApiProbeResult probe_api_server(const ApiProbeOptions& o) {
  std::vector<int64_t> lengths = {16, 256, o.max_prompt_len};
  lengths.erase(std::remove_if(lengths.begin(), lengths.end(),
                               [&o](int64_t l) { return l > o.max_prompt_len || l < 1; }),
                lengths.end());
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  loadgen::BenchConfig config = o.target;
  config.arrivals = loadgen::BenchConfig::Arrivals::kClosedLoop;
  config.concurrency = 1;
  config.stream = true;
  config.ignore_eos = true;
  ApiProbeResult result;
  int done = 0;
  const int total = static_cast<int>(lengths.size());
  for (int64_t length : lengths) {
    if (o.progress) o.progress(done, total);
    Trace trace;
    trace.source = "api probe";
    for (int i = 0; i < o.requests_per_length; ++i) {
      TraceRequest r;
      r.id = std::to_string(i);
      r.prompt_len = length;
      r.output_len = o.output_tokens;
      trace.requests.push_back(r);
    }
    const ProbeSums before = read_probe_sums(config);
    config.prompt_salt = fresh_prompt_salt(before.text, static_cast<uint64_t>(length));
    const loadgen::BenchRun run = loadgen::run_benchmark(trace, config);
    const ProbeSums after = read_probe_sums(config);
    double client_ttft = 0;
    for (const loadgen::RequestResult& r : run.results) {
      if (!r.success) throw std::runtime_error("an API-server probe request failed: " + r.error);
      client_ttft += static_cast<double>(r.ttft_ns) / 1e6;
    }
    const double n = after.count - before.count;
    if (n < 1) throw std::runtime_error("the server's TTFT histogram did not count the probes");
    ApiProbeLength l;
    l.prompt_len = length;
    const double server_ttft_ms = 1e3 * (after.ttft - before.ttft) / n;
    l.hop_ms = server_ttft_ms -
               1e3 * ((after.queue - before.queue) + (after.prefill - before.prefill)) / n;
    l.response_ms = client_ttft / static_cast<double>(run.results.size()) - server_ttft_ms;
    result.lengths.push_back(l);
    ++done;
  }
  if (o.progress) o.progress(done, total);
  result.costs = fit_api_costs(result.lengths);
  ApiServerCosts& c = result.costs;
  c.source = "calibrate API-server probe: " + std::to_string(o.requests_per_length) +
             " single requests at each of " + std::to_string(result.lengths.size()) +
             " prompt lengths, from /metrics and the client";
  return result;
}

}  // namespace llm
