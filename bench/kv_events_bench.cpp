// The engine-side cost of KV-cache events (--kv-events-config, docs/kv-events.md):
//   BM_EngineWithKvEvents/0|1   an EngineCore running 256 requests of 512 prompt tokens (8 shared
//                               prefixes of 256 tokens, unique suffixes) on a 600-block cache, so
//                               blocks are stored and evicted; /1 collects the events and takes
//                               them after every step, as llmserve's engine thread does
//   BM_EncodeKvEventBatch       the publisher thread's msgpack encoding of one such step's events
// Counters: events_s (events per second), steps.
// Run: llm_bench --benchmark_filter=KvEvent
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/engine_core.h"
#include "core/testing/scripted_backend.h"
#include "server/kv_events/kv_event_encoder.h"

namespace llm {
namespace {

std::unique_ptr<Request> shared_prefix_request(int i) {
  auto r = std::make_unique<Request>();
  r->prompt_tokens.resize(512);
  std::iota(r->prompt_tokens.begin(), r->prompt_tokens.begin() + 256, 1000 * (i % 8));
  std::iota(r->prompt_tokens.begin() + 256, r->prompt_tokens.end(), 100000 + 512 * i);
  r->prompt_len = 512;
  r->scripted_output_len = 32;
  r->keep_output_tokens = true;
  return r;
}

SchedulerConfig kv_events_config() {
  SchedulerConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = 600;
  c.max_model_len = 1024;
  c.max_num_batched_tokens = 4096;
  return c;
}

void BM_EngineWithKvEvents(benchmark::State& state) {
  const bool events = state.range(0) != 0;
  int64_t num_events = 0, steps = 0;
  for (auto _ : state) {
    SimClock clock;
    testing::ScriptedBackend backend;
    EngineCore engine(kv_events_config(), backend, clock);
    if (events) engine.enable_kv_events();
    for (int i = 0; i < 256; ++i) engine.add_request(shared_prefix_request(i));
    while (engine.step()) {
      ++steps;
      if (events) num_events += static_cast<int64_t>(engine.take_kv_events().size());
    }
  }
  state.counters["events_s"] =
      benchmark::Counter(static_cast<double>(num_events), benchmark::Counter::kIsRate);
  state.counters["steps"] =
      static_cast<double>(steps) / static_cast<double>(std::max<int64_t>(state.iterations(), 1));
}
BENCHMARK(BM_EngineWithKvEvents)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_EncodeKvEventBatch(benchmark::State& state) {
  // One prefill step's worth: 8 requests storing 32 blocks each and 64 removals. Arg 0: vLLM's
  // map events (the default), 1: the older array events.
  const KvEventFormat format = state.range(0) == 0 ? KvEventFormat::kMap : KvEventFormat::kArray;
  std::vector<KvEvent> events;
  for (int r = 0; r < 8; ++r) {
    KvBlockStored s;
    s.block_size = 16;
    for (int b = 0; b < 32; ++b) s.block_hashes.push_back(0x9e3779b97f4a7c15ULL * (r * 32 + b));
    s.token_ids.resize(32 * 16, 12345);
    events.push_back(std::move(s));
  }
  for (int i = 0; i < 64; ++i) events.push_back(KvBlockRemoved{{static_cast<uint64_t>(i)}});
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string payload = encode_kv_event_batch(1.7e9, events, 0, format);
    bytes += payload.size();
    benchmark::DoNotOptimize(payload.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["events_s"] = benchmark::Counter(
      static_cast<double>(events.size() * state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EncodeKvEventBatch)->Arg(0)->Arg(1);

}  // namespace
}  // namespace llm
