// The fp32 CPU backend on the Llama-shaped model of issue 15 with random weights (hidden 768,
// 12 layers, 12 heads, 4 KV heads, head_dim 64, ffn 2048, vocab 32000, untied output head: 124.7M
// parameters, the shape `llmsim make-model --dim 768 --layers 12 --heads 12 --kv-heads 4` writes;
// a decode step streams 400 MB of them: every layer and the output head, while the embedding table
// is only gathered, one row per token), or the model file named by $LLM_BENCH_MODEL (a .gguf or a
// safetensors folder), next to this machine's limits measured in the same process:
//   BM_MemoryRead      read bandwidth over 512 MiB, best of several access patterns (the roofline)
//   BM_MemoryCopy      memcpy of 256 MiB (STREAM convention: bytes read + written)
//   BM_GemmPeak        the backend's matmul kernel on 512 x 2048 x 768 (GFLOP/s)
//   BM_DecodeMatmuls/B every matmul of a decode step (12 layers and the head) for B rows, alone
//   BM_Decode/B        one decode step for B sequences with 128 tokens of context each
//   BM_Prefill/512     one 512-token prompt in a single step
// Counters: tok_s (tokens per second), roofline_tok_s (B * read bandwidth / weight bytes),
// of_roofline (tok_s / roofline_tok_s), of_limit (the larger of the weight-streaming time and the
// products' time at the GEMM peak, over the step's time: issue 15's measure), weights_GBps (weight
// bytes streamed per second), gflop_s, and sim_step_ms / sim_tok_s: llmsim's roofline cost model
// (backends/sim/cost_model.h) for the same shape and batch on a "device" made of the measured read
// bandwidth and GEMM peak (efficiencies 1, no overheads, fp32 weights and KV). $LLM_BENCH_READ_GBPS
// skips the bandwidth measurement (the roofline counters then use it). $LLM_BENCH_THREADS (default
// 0: all) sets the threads of BM_GemmPeak, BM_DecodeMatmuls, BM_Decode and BM_Prefill. With 1 the
// CPU column is all the work of an iteration, which keeps an A/B of two builds (bench/cpu_ab.py
// --metric cpu_time) meaningful on a loaded machine. Goal (issue 5): decode at batch 1 reaches at
// least 50% of roofline_tok_s.
// Run: llm_bench --benchmark_filter='BM_Memory|BM_Gemm|BM_Decode|BM_Prefill'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdlib>
#include <string>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/huge_buffer.h"
#include "backends/cpu/matmul.h"
#include "backends/cpu/thread_pool.h"
#include "backends/model/model_weights.h"
#include "backends/sim/cost_model.h"
#include "backends/sim/presets.h"
#include "bench/bench_util.h"
#include "core/ceil_div.h"
#include "core/rng.h"

namespace llm {
namespace {

constexpr int32_t kBlockSize = 16;
constexpr int64_t kContext = 128;

ModelConfig bench_config() {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 32000;
  c.hidden_size = 768;
  c.intermediate_size = 2048;
  c.num_hidden_layers = 12;
  c.num_attention_heads = 12;
  c.num_key_value_heads = 4;
  c.head_dim = 64;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 2048;
  c.tie_word_embeddings = false;
  return c;
}

std::shared_ptr<const ModelWeights> bench_weights() {
  static auto w = [] {
    const char* path = std::getenv("LLM_BENCH_MODEL");
    if (path && *path) return std::make_shared<const ModelWeights>(load_model_weights(path));
    return std::make_shared<const ModelWeights>(random_model_weights(bench_config(), 1, false));
  }();
  return w;
}

// Parameters a decode step must stream: every layer's weights and the output head (an untied
// embedding table is only gathered, one row per token). Also the step's multiply-adds per token.
double streamed_params() {
  const ModelWeights& w = *bench_weights();
  return static_cast<double>(w.num_parameters()) -
         (w.config.tie_word_embeddings ? 0.0 : static_cast<double>(w.tok_embeddings.size()));
}

double weight_bytes_per_step() { return 4.0 * streamed_params(); }

int bench_threads() {
  const char* env = std::getenv("LLM_BENCH_THREADS");
  return env && *env ? std::atoi(env) : 0;
}

// One way of reading a chunk of floats: `streams` interleaved sequential streams (the chunk cut
// into that many segments), each prefetched `ahead` floats in front of the loads (0: none), or,
// when `rows` > 0, the chunk as groups of `rows` rows of 768 floats read row-interleaved with the
// next group prefetched at the same offset (the batch-1 GEMV's pattern). One plain stream leaves
// this machine's memory system mostly idle, so the roofline is the best pattern.
struct ReadPattern {
  int streams = 1;
  int64_t ahead = 0;
  int rows = 0;
  int64_t panel = 0;  // > 0: the chunk as groups of `streams` runs of `panel` floats (the matmul's)
};

std::string pattern_name(const ReadPattern& p) {
  if (p.rows > 0) return "rows" + std::to_string(p.rows) + "+next";
  if (p.panel > 0) {
    return std::to_string(p.streams) + " panels of " + std::to_string(p.panel * 4 / 1024) +
           " KiB+pf" + std::to_string(p.ahead * 4);
  }
  return std::to_string(p.streams) + "x" + (p.ahead ? "+pf" + std::to_string(p.ahead * 4) : "");
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float read_avx512(const float* p, int64_t n,
                                                     const ReadPattern& pat) {
  __m512 acc[8];
  for (__m512& a : acc) a = _mm512_setzero_ps();
  if (pat.rows > 0) {
    const int64_t k = 768, group = k * pat.rows;
    for (int64_t g = 0; g + group <= n; g += group) {
      const bool next = g + 2 * group <= n;
      for (int64_t i = 0; i < k; i += 16) {
        for (int r = 0; r < pat.rows; ++r) {
          const float* q = p + g + r * k + i;
          if (next) _mm_prefetch(reinterpret_cast<const char*>(q + group), _MM_HINT_T0);
          acc[r & 7] = _mm512_add_ps(acc[r & 7], _mm512_loadu_ps(q));
        }
      }
    }
  } else if (pat.panel > 0) {
    const int64_t group = pat.panel * pat.streams;
    for (int64_t g = 0; g + group <= n; g += group) {
      for (int64_t i = 0; i < pat.panel; i += 16) {
        for (int s = 0; s < pat.streams; ++s) {
          const float* q = p + g + s * pat.panel + i;
          if (pat.ahead) _mm_prefetch(reinterpret_cast<const char*>(q + pat.ahead), _MM_HINT_T0);
          acc[s & 7] = _mm512_add_ps(acc[s & 7], _mm512_loadu_ps(q));
        }
      }
    }
  } else {
    const int64_t seg = n / pat.streams;
    for (int64_t i = 0; i + 16 <= seg; i += 16) {
      for (int s = 0; s < pat.streams; ++s) {
        const float* q = p + s * seg + i;
        if (pat.ahead) _mm_prefetch(reinterpret_cast<const char*>(q + pat.ahead), _MM_HINT_T0);
        acc[s & 7] = _mm512_add_ps(acc[s & 7], _mm512_loadu_ps(q));
      }
    }
  }
  for (int s = 1; s < 8; ++s) acc[0] = _mm512_add_ps(acc[0], acc[s]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, acc[0]);
  return lanes[0] + lanes[15];
}

__attribute__((target("avx2"))) float read_avx2(const float* p, int64_t n, const ReadPattern& pat) {
  const int64_t seg = n / pat.streams;
  __m256 acc[8];
  for (__m256& a : acc) a = _mm256_setzero_ps();
  for (int64_t i = 0; i + 16 <= seg; i += 16) {
    for (int s = 0; s < pat.streams; ++s) {
      const float* q = p + s * seg + i;
      if (pat.ahead) _mm_prefetch(reinterpret_cast<const char*>(q + pat.ahead), _MM_HINT_T0);
      __m256& a = acc[s & 7];
      a = _mm256_add_ps(a, _mm256_add_ps(_mm256_loadu_ps(q), _mm256_loadu_ps(q + 8)));
    }
  }
  for (int s = 1; s < 8; ++s) acc[0] = _mm256_add_ps(acc[0], acc[s]);
  return _mm256_cvtss_f32(acc[0]);
}
#endif

float read_chunk(const float* p, int64_t n, const ReadPattern& pat) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return read_avx512(p, n, pat);
  if (__builtin_cpu_supports("avx2") && pat.rows == 0 && pat.panel == 0) {
    return read_avx2(p, n, pat);
  }
#endif
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  return s;
}

struct Bandwidth {
  double bytes_per_s = 0;
  std::string pattern;  // the pattern and thread count that reached it
};

// Read bandwidth: the best pass over 512 MiB among 1-32 interleaved streams per thread with
// prefetch distances of 0, 2 and 8 KiB, the GEMV's row groups, the matmul's panels and the
// batch-1 matmul itself, on one thread and on all.
const Bandwidth& measure_read_bandwidth_pattern() {
  static const Bandwidth cached = [] {
    // A given figure instead (GB/s): for A/B runs, where the roofline counters do not matter.
    if (const char* given = std::getenv("LLM_BENCH_READ_GBPS"); given && *given) {
      return Bandwidth{std::atof(given) * 1e9, "given by $LLM_BENCH_READ_GBPS"};
    }
    const int64_t n = int64_t{128} << 20;       // floats
    const int64_t chunk = int64_t{768} * 1024;  // 3 MiB: a whole number of 8- and 16-row groups
    // On the weights' kind of memory (huge_buffer.h: 2 MiB pages where the kernel allows): on
    // 4 KiB pages the same patterns read 46 GB/s where the batch-1 matmuls stream 64 GB/s
    // (2-core Zen 5, 2026-12-05), so the roofline was the TLB's, not the memory's.
    FloatBuffer buffer = allocate_floats(static_cast<size_t>(n));
    float* const a = buffer.get();
    std::fill(a, a + n, 1.0f);
    std::vector<float> sums(static_cast<size_t>(n / chunk));
    std::vector<ReadPattern> patterns;
    for (int streams : {1, 4, 8, 16, 32}) {
      for (int64_t ahead : {0, 512, 2048}) patterns.push_back({streams, ahead, 0});
    }
    for (int rows : {8, 16}) patterns.push_back({1, 0, rows});
    // The matmul's own: batch 1 reads 8 panels of k x 16 floats side by side (k = 768), batch 16
    // one, each prefetched 8 KiB ahead (matmul.cpp's kAheadLines).
    for (int streams : {1, 8}) patterns.push_back({streams, 2048, 0, 768 * 16});
    Bandwidth best;
    for (int threads : {1, 0}) {
      ThreadPool pool(threads);
      for (const ReadPattern& pat : patterns) {
        for (int pass = 0; pass < 3; ++pass) {
          const auto t0 = std::chrono::steady_clock::now();
          auto task = [&](int64_t t) {
            sums[static_cast<size_t>(t)] = read_chunk(a + t * chunk, chunk, pat);
          };
          pool.run(n / chunk, task);
          const double bw = 4.0 * static_cast<double>(n / chunk * chunk) / bench::seconds_since(t0);
          if (bw > best.bytes_per_s) {
            best = {bw, pattern_name(pat) + " on " + std::to_string(pool.size()) + " threads"};
          }
        }
      }
    }
    // The batch-1 matmul itself over the same memory (a packed 768-wide matrix of 512 MiB): the
    // pattern the backend streams its weights with, which reached 57-64 GB/s where the best of
    // the patterns above read 45 (2-core Zen 5, 2026-12-05).
    PackedMatrix streamed{n / 768 / kPanelWidth * kPanelWidth, 768, FloatBuffer(buffer.release())};
    std::vector<float> x(768, 0.5f), out(static_cast<size_t>(streamed.n));
    const MatmulPart part{&streamed, nullptr, out.data(), streamed.n};
    for (int threads : {1, 0}) {
      ThreadPool pool(threads);
      for (int pass = 0; pass < 3; ++pass) {
        const auto t0 = std::chrono::steady_clock::now();
        matmul(&pool, x.data(), 768, 1, 768, {&part, 1});
        const double bw = 4.0 * static_cast<double>(streamed.n * 768) / bench::seconds_since(t0);
        if (bw > best.bytes_per_s) {
          best = {bw, "the batch-1 matmul on " + std::to_string(pool.size()) + " threads"};
        }
      }
    }
    benchmark::DoNotOptimize(sums.data());
    benchmark::DoNotOptimize(out.data());
    return best;
  }();
  return cached;
}

double measure_read_bandwidth() { return measure_read_bandwidth_pattern().bytes_per_s; }

void BM_MemoryRead(benchmark::State& state) {
  for (auto _ : state) state.counters["GBps"] = measure_read_bandwidth() / 1e9;
  state.SetLabel(measure_read_bandwidth_pattern().pattern);
}
BENCHMARK(BM_MemoryRead)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_MemoryCopy(benchmark::State& state) {
  const size_t bytes = size_t{256} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_MemoryCopy)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_GemmPeak(benchmark::State& state) {
  const int64_t m = 512, n = 2048, k = 768;
  Rng rng(3);
  std::vector<float> x(static_cast<size_t>(m * k)), w(static_cast<size_t>(n * k)),
      out(static_cast<size_t>(m * n));
  for (float& v : x) v = static_cast<float>(rng.uniform());
  for (float& v : w) v = static_cast<float>(rng.uniform());
  ThreadPool pool(bench_threads());
  const PackedMatrix packed = pack_matrix(w.data(), n, k);
  const MatmulPart part{&packed, nullptr, out.data(), n};
  for (auto _ : state) {
    matmul(&pool, x.data(), k, m, k, {&part, 1});
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * m * n * k;
  state.counters["gflop_s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = pool.size();
}
BENCHMARK(BM_GemmPeak)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// Every matmul of one decode step for B rows (the 12 layers' q/k/v, o, gate/up and down, then the
// output head) with the backend's kernel, without attention or the small vector ops: how close the
// matmul alone comes to streaming the weights at the read bandwidth (weights_GBps) or to the GEMM
// peak (gflop_s).
void BM_DecodeMatmuls(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const ModelWeights& w = *bench_weights();
  const ModelConfig& c = w.config;
  const int64_t h = c.hidden_size, qd = c.num_attention_heads * c.head_dim,
                kvd = c.num_key_value_heads * c.head_dim, f = c.intermediate_size;
  Rng rng(9);
  std::vector<float> x(static_cast<size_t>(rows * std::max({h, qd, f})));
  for (float& v : x) v = static_cast<float>(rng.uniform() - 0.5);
  std::vector<float> q(static_cast<size_t>(rows * qd)), k(static_cast<size_t>(rows * kvd)),
      v(static_cast<size_t>(rows * kvd)), o(static_cast<size_t>(rows * h)),
      gate(static_cast<size_t>(rows * f)), up(static_cast<size_t>(rows * f)),
      logits(static_cast<size_t>(rows * c.vocab_size));
  ThreadPool pool(bench_threads());
  const PackedModel pm = pack_model(w, &pool);
  auto step = [&] {
    for (const PackedLayer& l : pm.layers) {
      const MatmulPart qkv[] = {{&l.q_proj, nullptr, q.data(), qd},
                                {&l.k_proj, nullptr, k.data(), kvd},
                                {&l.v_proj, nullptr, v.data(), kvd}};
      matmul(&pool, x.data(), h, rows, h, qkv);
      const MatmulPart op[] = {{&l.o_proj, nullptr, o.data(), h}};
      matmul(&pool, x.data(), qd, rows, qd, op);
      const MatmulPart gu[] = {{&l.gate_proj, nullptr, gate.data(), f},
                               {&l.up_proj, nullptr, up.data(), f}};
      matmul(&pool, x.data(), h, rows, h, gu);
      const MatmulPart down[] = {{&l.down_proj, nullptr, o.data(), h}};
      matmul(&pool, x.data(), f, rows, f, down);
    }
    const MatmulPart head[] = {{&pm.output, nullptr, logits.data(), c.vocab_size}};
    matmul(&pool, x.data(), h, rows, h, head);
  };
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(logits.data());
  }
  state.counters["weights_GBps"] = benchmark::Counter(
      weight_bytes_per_step() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gflop_s"] =
      benchmark::Counter(2.0 * static_cast<double>(rows) * streamed_params() * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecodeMatmuls)
    ->Arg(1)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The measured GEMM rate for the cost model's device (FLOP/s): the best of 30 products, timed
// once per process (BM_GemmPeak reports the average rate of the same product).
double measured_gemm_flops() {
  static double cached = [] {
    const int64_t m = 512, n = 2048, k = 768;
    std::vector<float> x(static_cast<size_t>(m * k), 0.5f), w(static_cast<size_t>(n * k), 0.25f),
        out(static_cast<size_t>(m * n));
    ThreadPool pool(0);
    const PackedMatrix packed = pack_matrix(w.data(), n, k);
    const MatmulPart part{&packed, nullptr, out.data(), n};
    double best = 0;
    for (int i = 0; i < 30; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      matmul(&pool, x.data(), k, m, k, {&part, 1});
      best = std::max(best, 2.0 * m * n * k / bench::seconds_since(t0));
    }
    return best;
  }();
  return cached;
}

Deployment cpu_deployment() {
  const ModelConfig c = bench_weights()->config;
  Deployment d;
  GpuDatasheet device;
  device.memory_bytes = 16e9;
  device.hbm_bytes_per_s = measure_read_bandwidth();
  device.bf16_flops = measured_gemm_flops();
  d.gpu = roofline_gpu("this-cpu", device, 1.0, 1.0, 0, 0, 0);
  d.model.name = "cpu-bench-125m";
  d.model.layers = c.num_hidden_layers;
  d.model.hidden = c.hidden_size;
  d.model.heads = c.num_attention_heads;
  d.model.kv_heads = c.num_key_value_heads;
  d.model.head_dim = c.head_dim;
  d.model.ffn = c.intermediate_size;
  d.model.vocab = c.vocab_size;
  d.model.tied_embeddings = c.tie_word_embeddings;
  d.model.params = bench_weights()->num_parameters();
  d.model.weight_bytes_per_param = 4;
  d.model.max_context = c.max_position_embeddings;
  d.kv_cache_dtype_bytes = 4;
  return d;
}

struct Fixture {
  std::unique_ptr<CpuBackend> backend;
  std::vector<std::unique_ptr<Request>> requests;
};

// B requests whose first `context` tokens are already in the KV cache.
Fixture make_fixture(int64_t batch, int64_t context, int64_t prompt_len) {
  Fixture f;
  CpuBackendOptions o;
  o.block_size = kBlockSize;
  o.threads = bench_threads();
  const int64_t blocks_per = ceil_div(prompt_len, kBlockSize);
  o.num_blocks = 1 + batch * blocks_per;
  f.backend = std::make_unique<CpuBackend>(bench_weights(), o);
  int32_t next_block = 1;
  for (int64_t b = 0; b < batch; ++b) {
    auto r = std::make_unique<Request>();
    r->external_id = "r" + std::to_string(b);
    Rng rng(static_cast<uint64_t>(b) + 100);
    for (int64_t t = 0; t < prompt_len; ++t) {
      r->prompt_tokens.push_back(static_cast<int32_t>(
          rng.below(static_cast<uint64_t>(bench_weights()->config.vocab_size))));
    }
    r->prompt_len = prompt_len;
    r->params.temperature = 0;
    for (int64_t i = 0; i < blocks_per; ++i) r->block_ids.push_back(next_block++);
    f.requests.push_back(std::move(r));
  }
  if (context > 0) {
    for (auto& r : f.requests) {
      SchedulerOutput out;
      out.seqs.push_back({r.get(), 0, context, false});
      std::vector<int32_t> sampled;
      f.backend->execute(out, sampled);
    }
  }
  return f;
}

void sim_counters(benchmark::State& state, const BatchCost& cost, int64_t tokens) {
  const double step_s = static_cast<double>(step_time_ns(cpu_deployment(), cost)) * 1e-9;
  state.counters["sim_step_ms"] = step_s * 1e3;
  state.counters["sim_tok_s"] = static_cast<double>(tokens) / step_s;
}

void BM_Decode(benchmark::State& state) {
  const int64_t batch = state.range(0);
  Fixture f = make_fixture(batch, kContext, kContext + 1);
  SchedulerOutput out;
  BatchCost cost;
  for (auto& r : f.requests) {
    out.seqs.push_back({r.get(), kContext, 1, true});  // position 128, recomputed each iteration
    cost.add(kContext, 1, true);
  }
  std::vector<int32_t> sampled;
  const double roofline =
      static_cast<double>(batch) * measure_read_bandwidth() / weight_bytes_per_step();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) f.backend->execute(out, sampled);
  const double tok_s = static_cast<double>(batch) * static_cast<double>(state.iterations()) /
                       bench::seconds_since(t0);
  state.counters["tok_s"] = tok_s;
  state.counters["roofline_tok_s"] = roofline;
  state.counters["of_roofline"] = tok_s / roofline;
  // The rate at which the step streams the weights (each step reads all of them once).
  state.counters["weights_GBps"] =
      tok_s / static_cast<double>(batch) * weight_bytes_per_step() / 1e9;
  state.counters["read_GBps"] = measure_read_bandwidth() / 1e9;
  // Issue 15's limit for the step: the larger of streaming the weights at the read roofline and
  // the matrix products' FLOPs at the measured GEMM peak; of_limit is that time over the step's.
  const double limit_s =
      std::max(weight_bytes_per_step() / measure_read_bandwidth(),
               2.0 * static_cast<double>(batch) * streamed_params() / measured_gemm_flops());
  state.counters["of_limit"] = limit_s * tok_s / static_cast<double>(batch);
  sim_counters(state, cost, batch);
}
BENCHMARK(BM_Decode)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

void BM_Prefill(benchmark::State& state) {
  const int64_t len = state.range(0);
  Fixture f = make_fixture(1, 0, len);
  SchedulerOutput out;
  out.seqs.push_back({f.requests[0].get(), 0, len, true});
  BatchCost cost;
  cost.add(0, len, true);
  std::vector<int32_t> sampled;
  for (auto _ : state) f.backend->execute(out, sampled);
  state.counters["tok_s"] =
      benchmark::Counter(static_cast<double>(len), benchmark::Counter::kIsIterationInvariantRate);
  const double flops = step_flops(cpu_deployment(), cost);
  state.counters["gflop_s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gemm_peak_gflop_s"] = measured_gemm_flops() * 1e-9;
  sim_counters(state, cost, len);
}
BENCHMARK(BM_Prefill)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3.0);

}  // namespace
}  // namespace llm
