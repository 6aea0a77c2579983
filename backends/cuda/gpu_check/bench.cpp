// Decode at batch 1 and 64 over a 1k context and a 2,048-token prefill on a generated
// Llama-3.2-1B-shaped bf16 model (hidden 2048, 16 layers, 32/8 heads of 64, ffn 8192, vocab
// 128256, tied), each step timed as the engine sees it (execute() to the sampled tokens on the
// host), beside the roofline and llmsim's H200 preset.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_check/gpu_check.h"
#include "backends/cuda/gpu_check/step_driver.h"
#include "backends/cuda/weight_packing.h"
#include "backends/sim/cost_model.h"
#include "backends/sim/presets.h"

namespace llm {
namespace {

constexpr double kHbmBytesPerS = 4.8e12;  // H200 datasheet
constexpr double kBf16Flops = 989e12;     // H200 SXM dense bf16 datasheet

ModelConfig llama_1b(bool quick) {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 128256;
  c.hidden_size = 2048;
  c.intermediate_size = 8192;
  c.num_hidden_layers = quick ? 4 : 16;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.head_dim = 64;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 500000.0;
  c.max_position_embeddings = 4096;
  c.tie_word_embeddings = true;
  c.eos_token_ids = {128001};
  return c;
}

double seconds_of(Backend& backend, StepDriver& d) {
  std::vector<int32_t> out;
  const auto start = std::chrono::steady_clock::now();
  backend.execute(d.batch(), out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  d.apply(out);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

ModelShape shape_of(const ModelConfig& c) {
  ModelShape m;
  m.name = "generated";
  m.layers = c.num_hidden_layers;
  m.hidden = c.hidden_size;
  m.heads = c.num_attention_heads;
  m.kv_heads = c.num_key_value_heads;
  m.head_dim = c.head_dim;
  m.ffn = c.intermediate_size;
  m.vocab = c.vocab_size;
  m.tied_embeddings = c.tie_word_embeddings;
  m.params = params_from_shape(m);
  m.max_context = c.max_position_embeddings;
  return m;
}

}  // namespace

void run_benchmarks(const BenchOptions& o) {
  const ModelConfig config = llama_1b(o.quick);
  std::printf("generating a %s model...\n", o.quick ? "4-layer 1B-shaped" : "Llama-3.2-1B-shaped");
  std::fflush(stdout);
  auto weights = std::make_shared<const ModelWeights>(random_model_weights(config, 11, false));
  const int64_t weight_bytes = cuda_weight_bytes(*weights);
  const int64_t kv_per_token =
      2 * config.num_hidden_layers * config.num_key_value_heads * config.head_dim * 2;
  const int32_t bs = 16, ctx = 1024;
  const int64_t blocks = 64 * (ctx + 2 * o.decode_steps + 2048) / bs + 256;
  CudaBackendOptions go;
  go.num_blocks = blocks;
  go.block_size = bs;
  go.max_num_seqs = 64;
  go.max_num_batched_tokens = 2048;
  go.max_model_len = 4096;
  std::unique_ptr<Backend> gpu = make_cuda_backend(weights, go);
  Deployment sim;
  sim.gpu = *find_gpu_preset("H200");
  sim.model = shape_of(config);

  std::printf(
      "\n| step | batch | context | measured ms | tok/s | roofline | share | llmsim H200 ms |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  SamplingParams greedy;
  greedy.temperature = 0;
  for (int batch : {1, 64}) {
    StepDriver d(blocks, bs, 0);
    for (int i = 0; i < batch; ++i) d.add(seeded_prompt(100 + i, ctx, config.vocab_size), greedy);
    for (int i = 0; i < batch; i += 2) {  // prefill, two 1k prompts per 2,048-token step
      for (int j = i; j < std::min(batch, i + 2); ++j) d.schedule(j, ctx);
      seconds_of(*gpu, d);
    }
    std::vector<double> times;
    BatchCost cost;
    for (int step = 0; step < o.decode_steps + 3; ++step) {
      if (step == 3) cost = BatchCost{};
      for (int i = 0; i < batch; ++i) {
        if (step == 3) cost.add(d.computed(i), 1, true);
        d.schedule(i, 1);
      }
      const double s = seconds_of(*gpu, d);
      if (step >= 3) times.push_back(s);  // the first steps warm up (graph upload)
    }
    const double t = median(times);
    const double bytes = static_cast<double>(weight_bytes) +
                         static_cast<double>(batch) * (ctx + 3 + o.decode_steps / 2) * kv_per_token;
    const double roof = bytes / kHbmBytesPerS;
    std::printf(
        "| decode | %d | %d | %.3f | %.0f | %.3f ms (%.2f GB / 4.8 TB/s) | %.0f%% | %.3f |\n",
        batch, ctx, t * 1e3, batch / t, roof * 1e3, bytes / 1e9, 100 * roof / t,
        step_time_ns(sim, cost) / 1e6);
    std::fflush(stdout);
  }
  {
    const int64_t T = 2048;
    std::vector<double> times;
    BatchCost cost;
    cost.add(0, T, true);
    for (int run = 0; run < 4; ++run) {
      StepDriver d(blocks, bs, 0);
      d.add(seeded_prompt(7 + run, T, config.vocab_size), greedy);
      d.schedule(0, T);
      const double s = seconds_of(*gpu, d);
      if (run > 0) times.push_back(s);
    }
    const double t = median(times);
    const double dense =
        2.0 * static_cast<double>(T) *
        static_cast<double>(weights->num_parameters() - config.vocab_size * config.hidden_size);
    const double attention = 4.0 * config.num_hidden_layers * config.num_attention_heads *
                             config.head_dim * (static_cast<double>(T) * T / 2);
    const double flops = dense + attention + 2.0 * config.vocab_size * config.hidden_size;
    const double roof = flops / kBf16Flops;
    std::printf(
        "| prefill | 1 | %lld | %.3f | %.0f | %.3f ms (%.1f TFLOP / 989 TFLOP/s) | %.0f%% | %.3f "
        "|\n",
        static_cast<long long>(T), t * 1e3, T / t, roof * 1e3, flops / 1e12, 100 * roof / t,
        step_time_ns(sim, cost) / 1e6);
  }
  std::printf(
      "\nweights %.2f GB bf16; KV %lld bytes per token; step times are medians of %d "
      "decode steps (3 warm-up steps dropped) and of 3 prefills\n",
      weight_bytes / 1e9, static_cast<long long>(kv_per_token), o.decode_steps);
}

}  // namespace llm
