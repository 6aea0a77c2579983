#include "calibrate/http_probe.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "calibrate/prometheus_text.h"
#include "core/sample_stats.h"
#include "loadgen/http_get.h"

namespace llm {
namespace {

using loadgen::BenchConfig;
using loadgen::BenchRun;

constexpr int64_t kDecodeOutputs = 16;  // output tokens of each decode probe request

// What the server says about itself.
struct ServerFacts {
  std::string model;
  int64_t max_model_len = 0;
  bool is_llmserve = false;
  std::string metrics;  // the /metrics text at the start ("" when it has none)
};

ServerFacts read_server(const BenchConfig& target) {
  ServerFacts f;
  const loadgen::HttpGetResult models = loadgen::http_get(target, "/v1/models");
  if (models.status != 200) {
    throw std::runtime_error("GET /v1/models answered HTTP " + std::to_string(models.status) +
                             ": " + models.body.substr(0, 200));
  }
  f.is_llmserve = models.server == "llmserve";
  const nlohmann::json doc = nlohmann::json::parse(models.body, nullptr, false);
  if (doc.is_discarded() || !doc.contains("data") || doc["data"].empty()) {
    throw std::runtime_error("GET /v1/models did not list a model");
  }
  const nlohmann::json& first = doc["data"][0];
  f.model = target.model.empty() ? first.value("id", "") : target.model;
  f.max_model_len = first.value("max_model_len", int64_t{0});
  const loadgen::HttpGetResult metrics = loadgen::http_get(target, "/metrics");
  if (metrics.status == 200) f.metrics = metrics.body;
  return f;
}

// A trace of `count` requests at time 0 with `prompt` prompt tokens and `outputs` output tokens.
Trace probe_trace(int64_t count, int64_t prompt, int64_t outputs) {
  Trace t;
  t.source = "calibrate";
  for (int64_t i = 0; i < count; ++i) {
    TraceRequest r;
    r.id = std::to_string(i);
    r.prompt_len = prompt;
    r.output_len = outputs;
    t.requests.push_back(r);
  }
  return t;
}

// Runs a probe; every request must succeed with exactly the output length asked for.
BenchRun run_checked(const Trace& trace, const BenchConfig& config) {
  BenchRun run = loadgen::run_benchmark(trace, config);
  for (size_t i = 0; i < run.results.size(); ++i) {
    const loadgen::RequestResult& r = run.results[i];
    if (!r.success) throw std::runtime_error("a probe request failed: " + r.error);
    const int64_t want = trace.requests[i % trace.requests.size()].output_len;
    if (r.output_tokens != want) {
      throw std::runtime_error(
          "the server returned " + std::to_string(r.output_tokens) + " tokens for max_tokens " +
          std::to_string(want) +
          " with ignore_eos: it does not honour them, and calibration needs exact output "
          "lengths");
    }
  }
  return run;
}

// The mean of a histogram over the requests of a probe: (sum after - before) / (count delta).
std::optional<double> histogram_mean_delta(const std::string& before, const std::string& after,
                                           const std::string& family) {
  const auto s0 = metric_total(before, family + "_sum"), s1 = metric_total(after, family + "_sum");
  const auto c0 = metric_total(before, family + "_count");
  const auto c1 = metric_total(after, family + "_count");
  if (!s0 || !s1 || !c0 || !c1 || *c1 - *c0 < 1) return std::nullopt;
  return (*s1 - *s0) / (*c1 - *c0);
}

class Prober {
 public:
  Prober(const HttpProbeOptions& o, const ServerFacts& facts) : o_(o), facts_(facts) {
    base_ = o.target;
    base_.model = facts.model;
    base_.endpoint = "/v1/completions";
    base_.chat = false;
    base_.token_ids = true;
    base_.ignore_eos = true;
    base_.stream = true;
  }

  // One prefill step of `prompt` tokens, measured `repeats` times one request at a time.
  StepSample prefill(int64_t prompt) {
    BenchConfig c = base_;
    c.arrivals = BenchConfig::Arrivals::kClosedLoop;
    c.concurrency = 1;
    c.num_requests = o_.repeats;
    const std::string before = metrics();
    c.prompt_salt = fresh_prompt_salt(before, ++probes_);
    const BenchRun run = run_checked(probe_trace(1, prompt, 1), c);
    std::optional<double> engine_s =
        histogram_mean_delta(before, metrics(), "vllm:request_prefill_time_seconds");
    std::vector<double> ttft;
    for (const auto& r : run.results) ttft.push_back(static_cast<double>(r.ttft_ns));
    StepSample s;
    s.cost.add(0, prompt, true);
    s.ns = engine_s ? *engine_s * 1e9 : quantile(ttft, 0.5);
    return s;
  }

  // A decode step of `batch` sequences at about `context` tokens: a wave of that many requests,
  // timed by the median gap between streamed tokens over all of them. Not by the server's
  // vllm:request_decode_time_seconds: a wave's requests reach the engine a few at a time, and
  // when their prompts pass the token budget they prefill in several steps, so the early ones'
  // decode time holds the later ones' prefill steps (a profile fitted on it predicted TPOT and ITL
  // 40-55% too high in docs/fidelity.md). Only a server that does not stream falls back to it.
  StepSample decode(int64_t batch, int64_t context) {
    std::vector<double> per_token;
    for (int r = 0; r < o_.repeats; ++r) {
      const std::string before = metrics();
      BenchConfig c = base_;
      c.prompt_salt = fresh_prompt_salt(before, ++probes_);
      const BenchRun run = run_checked(probe_trace(batch, context, kDecodeOutputs), c);
      std::vector<double> itl;
      for (const auto& res : run.results) {
        for (int64_t gap : res.itl_ns) itl.push_back(static_cast<double>(gap));
      }
      if (!itl.empty()) {
        per_token.push_back(quantile(itl, 0.5));
        continue;
      }
      const std::optional<double> engine_s =
          histogram_mean_delta(before, metrics(), "vllm:request_decode_time_seconds");
      if (engine_s) per_token.push_back(*engine_s * 1e9 / (kDecodeOutputs - 1));
    }
    if (per_token.empty()) {
      throw std::runtime_error("decode probe " + std::to_string(batch) + " x " +
                               std::to_string(context) +
                               ": the server streamed no token gaps and has no "
                               "vllm:request_decode_time_seconds");
    }
    StepSample s;
    for (int64_t i = 0; i < batch; ++i) s.cost.add(context + kDecodeOutputs / 2, 1, true);
    s.ns = quantile(per_token, 0.5);
    return s;
  }

 private:
  std::string metrics() {
    if (facts_.metrics.empty()) return "";
    const loadgen::HttpGetResult r = loadgen::http_get(o_.target, "/metrics");
    return r.status == 200 ? r.body : "";
  }

  const HttpProbeOptions& o_;
  const ServerFacts& facts_;
  BenchConfig base_;
  // Probes so far: with the server's prompt-token count, a salt that keeps every probe's prompt
  // out of the prefix cache (a cached prompt would time a prefill of its last block only).
  uint64_t probes_ = 0;
};

}  // namespace

HttpCalibration probe_server(const HttpProbeOptions& o) {
  const ServerFacts facts = read_server(o.target);
  HttpCalibration out;
  EngineProfile& p = out.facts;
  p.source = "server at http://" + o.target.host + ":" + std::to_string(o.target.port) +
             o.target.base_path + (facts.is_llmserve ? " (llmserve)" : "");
  p.model = facts.model;
  p.max_model_len = facts.max_model_len;
  if (p.max_model_len < 64) {
    throw std::runtime_error("GET /v1/models gave no usable max_model_len for " + facts.model);
  }
  const auto cache = metric_labels(facts.metrics, "vllm:cache_config_info");
  if (cache.count("num_gpu_blocks")) {
    p.num_gpu_blocks = std::stoll(cache.at("num_gpu_blocks"));
    p.block_size = cache.count("block_size") ? std::stoll(cache.at("block_size")) : 16;
    if (cache.count("cache_dtype")) p.kv_cache_dtype = cache.at("cache_dtype");
  } else if (o.num_gpu_blocks) {
    p.num_gpu_blocks = *o.num_gpu_blocks;
    out.assumptions.push_back("KV blocks: " + std::to_string(p.num_gpu_blocks) +
                              " of 16 tokens (--num-gpu-blocks-override)");
  } else {
    throw std::runtime_error(
        "/metrics has no vllm:cache_config_info, so the KV cache's size is unknown; pass "
        "--num-gpu-blocks-override N");
  }
  p.max_num_seqs = o.max_num_seqs.value_or(256);
  p.max_num_batched_tokens = o.max_num_batched_tokens.value_or(2048);
  if (!o.max_num_seqs) out.assumptions.push_back("max_num_seqs 256 (--max-num-seqs)");
  if (!o.max_num_batched_tokens) {
    out.assumptions.push_back("max_num_batched_tokens 2048 (--max-num-batched-tokens)");
  }
  p.async_scheduling = o.async_scheduling.value_or(!facts.is_llmserve);
  if (!o.async_scheduling) {
    out.assumptions.push_back(std::string("async scheduling ") +
                              (p.async_scheduling ? "on (vLLM's default)" : "off (llmserve)") +
                              " (--async-scheduling / --no-async-scheduling)");
  }
  p.vocab_size = 32000;  // the ids the probes send; the replay's sim model needs a vocabulary
  if (facts.metrics.empty()) {
    out.assumptions.push_back("no /metrics: steps timed on the client (TTFT and ITL)");
  }

  Prober prober(o, facts);
  std::vector<int64_t> prompts, batches, contexts = {16, 256, 1024};
  for (int64_t n : {16, 64, 256, 1024, 2048, 32, 128, 512}) {
    if (n <= *p.max_num_batched_tokens && n <= p.max_model_len - 8 && (!o.quick || n <= 256)) {
      prompts.push_back(n);
    }
  }
  for (int64_t b = 1; b < *p.max_num_seqs; b *= 2) batches.push_back(b);
  batches.push_back(*p.max_num_seqs);
  const int64_t cap = o.quick ? 1024 : 8192;
  int total = static_cast<int>(prompts.size()), done = 0;
  for (int64_t c : contexts) {
    for (int64_t b : batches) total += b * c <= cap && c + kDecodeOutputs < p.max_model_len;
  }
  for (int64_t n : prompts) {
    if (o.progress) o.progress("prefill " + std::to_string(n), ++done, total);
    out.samples.push_back(prober.prefill(n));
  }
  for (int64_t c : contexts) {
    for (int64_t b : batches) {
      if (b * c > cap || c + kDecodeOutputs >= p.max_model_len) continue;
      if (o.progress) {
        o.progress("decode " + std::to_string(b) + " x " + std::to_string(c), ++done, total);
      }
      out.samples.push_back(prober.decode(b, c));
    }
  }
  return out;
}

}  // namespace llm
