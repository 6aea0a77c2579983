// The CUDA backend against the CPU backend, step by step on the same hand-made batches (prefill
// chunks, a block-sized and a block+1 prompt, decode steps that replay CUDA graphs), on generated
// models: logits within a tolerance, greedy tokens identical wherever the CPU's top-2 margin
// exceeds it, seeded sampling repeated exactly, and graph replay against the eager path.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_check/gpu_check.h"
#include "backends/cuda/gpu_check/step_driver.h"

namespace llm {
namespace {

constexpr double kLogitTolerance = 0.05;  // |gpu - cpu| <= kLogitTolerance * (1 + max |cpu logit|)

ModelConfig base_config(const std::string& name) {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 2048;
  c.hidden_size = 256;
  c.intermediate_size = 688;
  c.num_hidden_layers = 3;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 32;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 1024;
  c.eos_token_ids = {1};
  if (name == "qwen2-bias-tied") {
    c.architecture = "qwen2";
    c.attention_bias = true;
    c.tie_word_embeddings = true;
    c.num_key_value_heads = 1;
    c.head_dim = 24;
    c.hidden_size = 192;
    c.rope_theta = 1000000.0;
  } else if (name == "llama3-scaled-hd64") {
    c.head_dim = 64;
    c.num_attention_heads = 4;
    c.num_key_value_heads = 4;
    c.rope_theta = 500000.0;
    c.rope_scaling.type = RopeScaling::Type::kLlama3;
    c.rope_scaling.factor = 8.0;
    c.rope_scaling.original_max_position_embeddings = 64;
  } else if (name == "gqa8-hd128") {
    c.head_dim = 128;
    c.num_attention_heads = 16;
    c.num_key_value_heads = 2;
    c.hidden_size = 512;
  }
  return c;
}

struct LogitsLog {
  std::map<std::string, std::vector<float>> latest;
  void record(const Request& r, std::span<const float> l) {
    latest[r.external_id].assign(l.begin(), l.end());
  }
};

// Runs both backends on the driver's step; returns false on a mismatch (printed).
struct Comparison {
  double worst_ratio = 0;  // max |gpu - cpu| / (1 + max |cpu|)
  int tokens = 0, compared = 0, mismatched = 0;
};

void compare_step(StepDriver& d, Backend& cpu, Backend& gpu, LogitsLog& cpu_log, LogitsLog& gpu_log,
                  Comparison& c) {
  std::vector<int32_t> cpu_tokens, gpu_tokens;
  cpu.execute(d.batch(), cpu_tokens);
  gpu.execute(d.batch(), gpu_tokens);
  for (size_t k = 0; k < d.batch().seqs.size(); ++k) {
    if (!d.batch().seqs[k].samples) continue;
    const std::string& id = d.batch().seqs[k].request->external_id;
    const std::vector<float>& a = cpu_log.latest[id];
    const std::vector<float>& b = gpu_log.latest[id];
    double scale = 0, err = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::fabs(double(a[i])));
      err = std::max(err, std::fabs(double(a[i]) - b[i]));
    }
    c.worst_ratio = std::max(c.worst_ratio, err / (1 + scale));
    std::vector<float> sorted = a;
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<float>());
    ++c.tokens;
    if (sorted[0] - sorted[1] > 2 * kLogitTolerance * (1 + scale)) {
      ++c.compared;
      if (cpu_tokens[k] != gpu_tokens[k]) ++c.mismatched;
    }
  }
  d.apply(cpu_tokens);  // both continue on the CPU's tokens
}

bool check_model(const std::string& name, GpuCheckReport& report) {
  const ModelConfig config = base_config(name);
  auto weights = std::make_shared<const ModelWeights>(random_model_weights(config, 7, true));
  const int32_t bs = 16;
  const int64_t blocks = 256;
  LogitsLog cpu_log, gpu_log;
  CpuBackendOptions co;
  co.num_blocks = blocks;
  co.block_size = bs;
  co.threads = 4;
  co.on_logits = [&](const Request& r, std::span<const float> l) { cpu_log.record(r, l); };
  CpuBackend cpu(weights, co);
  CudaBackendOptions go;
  go.num_blocks = blocks;
  go.block_size = bs;
  go.max_num_seqs = 8;
  go.max_num_batched_tokens = 256;
  go.max_model_len = 1024;
  go.on_logits = [&](const Request& r, std::span<const float> l) { gpu_log.record(r, l); };
  std::unique_ptr<Backend> gpu = make_cuda_backend(weights, go);

  StepDriver d(blocks, bs, 99);
  SamplingParams greedy;
  greedy.temperature = 0;
  const size_t a = d.add(seeded_prompt(1, 37, config.vocab_size), greedy);
  const size_t b = d.add(seeded_prompt(2, bs, config.vocab_size), greedy);
  const size_t c3 = d.add(seeded_prompt(3, bs + 1, config.vocab_size), greedy);
  const size_t e = d.add(seeded_prompt(4, bs - 1, config.vocab_size), greedy);
  Comparison cmp;
  d.schedule(a, 20);  // a chunked prefill: 20 tokens now, 17 next step
  d.schedule(b, bs);
  d.schedule(c3, bs + 1);
  compare_step(d, cpu, *gpu, cpu_log, gpu_log, cmp);
  d.schedule(a, 17);
  d.schedule(b, 1);
  d.schedule(c3, 1);
  d.schedule(e, bs - 1);
  compare_step(d, cpu, *gpu, cpu_log, gpu_log, cmp);
  for (int step = 0; step < 40; ++step) {  // decode: graph buckets 4, then 2 and 1 as they drop
    const size_t live = step < 20 ? 4 : step < 30 ? 2 : 1;
    for (size_t i = 0; i < live; ++i) d.schedule(i, 1);
    compare_step(d, cpu, *gpu, cpu_log, gpu_log, cmp);
  }
  char detail[200];
  std::snprintf(detail, sizeof detail,
                "max |dlogit|/(1+max|logit|) %.4f (tol %.2f); greedy tokens %d/%d compared "
                "(margin > 2 tol), %d differ",
                cmp.worst_ratio, kLogitTolerance, cmp.compared, cmp.tokens, cmp.mismatched);
  return report.expect("e2e " + name + " vs cpu backend",
                       cmp.worst_ratio <= kLogitTolerance && cmp.mismatched == 0, detail);
}

// Seeded sampling: a request run again (other blocks, another batch) draws the same tokens, as a
// preempted request recomputed later must; and the eager path draws what graph replay draws.
bool check_sampling_repeats(GpuCheckReport& report) {
  const ModelConfig config = base_config("llama3-scaled-hd64");
  auto weights = std::make_shared<const ModelWeights>(random_model_weights(config, 8, false));
  SamplingParams p;
  p.temperature = 0.8;
  p.top_p = 0.9;
  p.top_k = 40;
  p.seed = 1234;
  auto run = [&](bool graphs, uint64_t shuffle, int companions) {
    CudaBackendOptions go;
    go.num_blocks = 128;
    go.max_num_seqs = 8;
    go.max_num_batched_tokens = 256;
    go.max_model_len = 1024;
    go.cuda_graphs = graphs;
    std::unique_ptr<Backend> gpu = make_cuda_backend(weights, go);
    StepDriver d(128, 16, shuffle);
    const size_t r = d.add(seeded_prompt(5, 30, config.vocab_size), p);
    for (int i = 0; i < companions; ++i) d.add(seeded_prompt(6 + i, 9, config.vocab_size), p);
    for (size_t i = 0; i < d.size(); ++i) d.schedule(i, d.request(i).prompt_len);
    std::vector<int32_t> out;
    for (int step = 0; step < 24; ++step) {
      gpu->execute(d.batch(), out);
      d.apply(out);
      for (size_t i = 0; i < d.size(); ++i) d.schedule(i, 1);
    }
    return d.request(r).output_tokens;
  };
  const std::vector<int32_t> first = run(true, 1, 0);
  const std::vector<int32_t> again = run(true, 2, 3);
  const std::vector<int32_t> eager = run(false, 3, 1);
  bool ok = report.expect("seeded sampling repeats across blocks and batches", first == again);
  return report.expect("eager path samples what graph replay samples", first == eager) && ok;
}

}  // namespace

bool run_e2e_checks(GpuCheckReport& report) {
  bool ok = true;
  for (const char* name :
       {"llama-gqa4-hd32", "qwen2-bias-tied", "llama3-scaled-hd64", "gqa8-hd128"}) {
    ok = check_model(name, report) && ok;
  }
  return check_sampling_repeats(report) && ok;
}

}  // namespace llm
