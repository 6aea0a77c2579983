#include "sim/recorded/vllm_bench_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/rng.h"
#include "sim/recorded/recorded_engine.h"
#include "sim/recorded/recorded_files.h"
#include "sim/recorded/run_figures.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

const nlohmann::json& bench_array_at(const nlohmann::json& j, const char* key,
                                     const std::string& path, size_t size) {
  if (!j.contains(key) || !j.at(key).is_array()) {
    throw TraceError(path + ": " + key + ": missing (save the result with --save-detailed)");
  }
  const nlohmann::json& a = j.at(key);
  if (size != SIZE_MAX && a.size() != size) {
    throw TraceError(path + ": " + key + ": " + std::to_string(a.size()) +
                     " entries, input_lens has " + std::to_string(size));
  }
  return a;
}

double bench_number_at(const nlohmann::json& a, size_t i, const char* key,
                       const std::string& path) {
  if (!a[i].is_number() || !std::isfinite(a[i].get<double>())) {
    throw TraceError(path + ": " + key + "[" + std::to_string(i) + "]: expected a number, got " +
                     a[i].dump());
  }
  return a[i].get<double>();
}

// A gamma variate of shape k and scale theta (Marsaglia and Tsang; k < 1 boosted by U^(1/k)).
double gamma_variate(Rng& rng, double k, double theta) {
  if (k < 1) return gamma_variate(rng, k + 1, theta) * std::pow(rng.uniform() + 1e-300, 1 / k);
  const double d = k - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform();
    if (std::log(u + 1e-300) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * theta;
  }
}

}  // namespace

bool is_vllm_bench_result(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || !path.ends_with(".json")) return false;
  std::ifstream in(path);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find("\"input_lens\"") != std::string::npos ||
         head.find("\"ttfts\"") != std::string::npos ||
         head.find("\"request_rate\"") != std::string::npos;
}

RecordedRun read_vllm_bench_result(const std::string& path, const RecordedOptions& options) {
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object()) throw TraceError(path + ": expected a JSON object");
  RecordedRun run;
  run.kind = "vllm-bench";
  run.name = fs::path(path).stem().string();
  run.source = path;
  run.view = MeasuredView::kClient;
  const nlohmann::json& inputs = bench_array_at(j, "input_lens", path, SIZE_MAX);
  const size_t n = inputs.size();
  if (n == 0) throw TraceError(path + ": input_lens: no requests");
  const nlohmann::json& outputs = bench_array_at(j, "output_lens", path, n);
  const nlohmann::json& ttfts = bench_array_at(j, "ttfts", path, n);
  const nlohmann::json& latencies = bench_array_at(j, "latencies", path, n);
  const nlohmann::json* errors =
      j.contains("errors") ? &bench_array_at(j, "errors", path, n) : nullptr;
  const nlohmann::json* starts =
      j.contains("start_times") ? &bench_array_at(j, "start_times", path, n) : nullptr;

  // The load, when the send times were not kept.
  double rate = INFINITY, burstiness = 1;
  if (!starts) {
    if (!j.contains("request_rate")) throw TraceError(path + ": request_rate: missing");
    const nlohmann::json& r = j.at("request_rate");
    if (r == "inf") {
      rate = INFINITY;
    } else if (r.is_number() && r.get<double>() > 0) {
      rate = r.get<double>();
    } else {
      throw TraceError(path + ": request_rate: expected a number > 0 or \"inf\", got " + r.dump());
    }
    if (j.contains("burstiness") && !j.at("burstiness").is_null()) {
      burstiness = json_number_at(j, "burstiness", path);
      if (burstiness <= 0) throw TraceError(path + ": burstiness: must be > 0");
    }
    if (j.contains("max_concurrency") && !j.at("max_concurrency").is_null()) {
      throw TraceError(path + ": max_concurrency: " + j.at("max_concurrency").dump() +
                       " makes a closed loop, which needs the recorded start_times to replay");
    }
  }

  double t0 = INFINITY;
  if (starts) {
    for (size_t i = 0; i < n; ++i)
      t0 = std::min(t0, bench_number_at(*starts, i, "start_times", path));
  }
  Rng rng(options.seed);
  double t = 0;
  std::vector<double> ttft_ms, e2e_ms, tpot_ms;
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    const bool failed = errors && !(*errors)[i].is_null() && (*errors)[i] != "";
    if (!starts && i > 0 && std::isfinite(rate)) {
      t += gamma_variate(rng, burstiness, 1 / (rate * burstiness));
    }
    if (failed) {
      ++run.failed;
      continue;
    }
    const double in = bench_number_at(inputs, i, "input_lens", path);
    const double out = bench_number_at(outputs, i, "output_lens", path);
    if (in < 1 || out < 1 || in != std::floor(in) || out != std::floor(out)) {
      throw TraceError(path + ": input_lens" + at + "/output_lens" + at +
                       ": expected whole token counts >= 1");
    }
    const double ttft = bench_number_at(ttfts, i, "ttfts", path);
    const double latency = bench_number_at(latencies, i, "latencies", path);
    if (ttft <= 0 || latency < ttft) {
      throw TraceError(path + ": ttfts" + at + ": expected 0 < ttft <= latency");
    }
    TraceRequest r;
    r.id = std::to_string(i);
    r.arrival_ns =
        std::llround(1e9 * (starts ? bench_number_at(*starts, i, "start_times", path) - t0 : t));
    r.prompt_len = static_cast<int64_t>(in);
    r.output_len = static_cast<int64_t>(out);
    r.max_tokens = r.output_len;
    run.trace.requests.push_back(std::move(r));
    ttft_ms.push_back(1e3 * ttft);
    e2e_ms.push_back(1e3 * latency);
    if (out > 1) tpot_ms.push_back(1e3 * (latency - ttft) / (out - 1));
  }
  if (run.trace.requests.empty()) throw TraceError(path + ": errors: every request failed");
  std::stable_sort(
      run.trace.requests.begin(), run.trace.requests.end(),
      [](const TraceRequest& a, const TraceRequest& b) { return a.arrival_ns < b.arrival_ns; });
  run.trace.source = path;
  run.trace.format = "vllm bench serve";
  run.measured = figures_of_samples(ttft_ms, e2e_ms, tpot_ms);
  run.stages.push_back({"all", 0, run.trace.requests.size(), run.measured});
  if (!starts) {
    run.notes.push_back(std::isfinite(rate) ? "arrivals drawn at the recorded rate and burstiness"
                                            : "request_rate inf: every request sent at once");
  }
  if (run.failed > 0) run.notes.push_back(std::to_string(run.failed) + " failed requests left out");

  RecordedServer s;
  s.label = path;
  s.model = j.value("model_id", "");
  s.card = options.gpu;
  if (options.gpu.empty()) {
    throw TraceError(path + ": the card is not in a vllm bench serve result: give --gpu");
  }
  if (s.model.empty() && options.model.empty()) {
    throw TraceError(path + ": model_id: missing (give --model)");
  }
  run.model = s.model;
  run.gpu = s.card;
  run.engine = recorded_engine_args(s, path, options, run.notes);
  return run;
}

}  // namespace llm
