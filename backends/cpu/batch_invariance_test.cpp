// Bit-exact batch invariance of the CPU backend, driven through the real EngineCore: a request's
// logits and tokens must not depend on its batch mates, on prefill chunking, on where its KV
// blocks lie, on prefix-cache hits, or on preemption and recompute.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/matmul.h"
#include "core/engine_core.h"

namespace llm {
namespace {

using Logits = std::vector<float>;

struct Spec {
  std::string id;
  std::vector<int32_t> prompt;
  int64_t max_tokens = 8;
  double temperature = 0;
  uint64_t seed = 0;
  int arrive_step = 0;  // added before this step
};

struct Result {
  std::map<std::string, std::vector<int32_t>> tokens;
  std::map<std::string, std::vector<Logits>> logits;  // one per sampled token, in order
  std::map<std::string, int64_t> cached;
  std::map<std::string, int32_t> preemptions;
  int64_t max_batch = 0;
};

class Recorder final : public EngineObserver {
 public:
  explicit Recorder(Result* r) : r_(r) {}
  void on_finished(const Request& q) override {
    r_->tokens[q.external_id] = q.output_tokens;
    r_->cached[q.external_id] = q.num_cached_tokens;
    r_->preemptions[q.external_id] = q.timeline.num_preemptions;
  }

 private:
  Result* r_;
};

std::shared_ptr<const ModelWeights> model() {
  static auto w = std::make_shared<const ModelWeights>(
      random_model_weights(cpu_testing::tiny_llama(), 5, true));
  return w;
}

SchedulerConfig base_config() {
  SchedulerConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = 128;
  c.max_num_batched_tokens = 256;
  c.max_num_seqs = 16;
  c.max_model_len = 128;
  c.enable_prefix_caching = false;
  return c;
}

Result run(const SchedulerConfig& config, const std::vector<Spec>& specs, int threads = 0) {
  Result res;
  CpuBackendOptions o;
  o.num_blocks = config.num_gpu_blocks;
  o.block_size = config.block_size;
  o.threads = threads;
  // Logits are recorded at the request's output count: a recomputed step overwrites its entry.
  o.on_logits = [&res](const Request& r, std::span<const float> l) {
    auto& v = res.logits[r.external_id];
    v.resize(static_cast<size_t>(r.num_output_tokens) + 1);
    v[static_cast<size_t>(r.num_output_tokens)] = Logits(l.begin(), l.end());
  };
  CpuBackend backend(model(), o);
  SimClock clock;
  Recorder rec(&res);
  EngineCore engine(config, backend, clock, &rec);
  auto add = [&](const Spec& s) {
    auto r = std::make_unique<Request>();
    r->external_id = s.id;
    r->prompt_tokens = s.prompt;
    r->keep_output_tokens = true;
    r->params.max_tokens = s.max_tokens;
    r->params.temperature = s.temperature;
    r->params.seed = s.seed;
    engine.add_request(std::move(r));
  };
  for (int step = 0;; ++step) {
    for (const Spec& s : specs) {
      if (s.arrive_step == step) add(s);
    }
    bool later = false;
    for (const Spec& s : specs) later |= s.arrive_step > step;
    Nanos d = 0;
    if (!engine.begin_step(&d)) {
      if (!later) break;
      continue;
    }
    res.max_batch = std::max<int64_t>(res.max_batch, engine.last_batch().seqs.size());
    clock.set(clock.now() + 1000);
    engine.end_step(clock.now());
  }
  return res;
}

Spec spec(const std::string& id, uint64_t seed, int64_t len, int64_t max_tokens = 8) {
  return {id, cpu_testing::prompt(seed, len, 300), max_tokens};
}

void expect_same(const Result& a, const Result& b, const std::string& id) {
  ASSERT_TRUE(a.tokens.count(id) && b.tokens.count(id)) << id;
  EXPECT_EQ(a.tokens.at(id), b.tokens.at(id)) << id;
  ASSERT_EQ(a.logits.at(id).size(), b.logits.at(id).size()) << id;
  for (size_t i = 0; i < a.logits.at(id).size(); ++i) {
    ASSERT_EQ(a.logits.at(id)[i], b.logits.at(id)[i]) << id << " logits of output " << i;
  }
}

// The default SIMD path is the best this CPU has; the other paths must be as invariant.
TEST(BatchInvariance, EverySimdPathIsInvariant) {
  const Spec a = spec("A", 21, 19, 6);
  const std::vector<Spec> crowd = {spec("B", 22, 30, 7), a, spec("C", 23, 9, 5)};
  SchedulerConfig chunked = base_config();
  chunked.max_num_batched_tokens = 7;
  for (SimdLevel level : {SimdLevel::kPortable, SimdLevel::kAvx2Fma, SimdLevel::kAvx512}) {
    force_simd_level(level);
    SCOPED_TRACE(simd_name(simd_level()));
    const Result alone = run(base_config(), {a});
    expect_same(alone, run(base_config(), crowd), "A");
    expect_same(alone, run(chunked, crowd), "A");
  }
  force_simd_level(SimdLevel::kAvx512);  // back to the best supported
}

TEST(BatchInvariance, AloneOrInABatchGivesIdenticalLogits) {
  const Spec a = spec("A", 1, 13, 10);
  const Result alone = run(base_config(), {a});
  ASSERT_EQ(alone.tokens.at("A").size(), 10u);
  std::vector<Spec> crowd = {spec("B", 2, 30, 12), spec("C", 3, 5, 3), a, spec("D", 4, 21, 9)};
  Spec late = spec("E", 5, 9, 6);
  late.arrive_step = 3;  // joins while A decodes: prefill and decode tokens share steps
  crowd.push_back(late);
  const Result together = run(base_config(), crowd);
  EXPECT_GE(together.max_batch, 4);
  expect_same(alone, together, "A");
  // The same with one thread: the thread count does not matter either.
  expect_same(alone, run(base_config(), crowd, 1), "A");
  // Tokens from a sampling (temperature > 0) request are as invariant.
  Spec s = spec("S", 6, 11, 12);
  s.temperature = 0.9;
  s.seed = 1234;
  const Result s_alone = run(base_config(), {s});
  crowd.push_back(s);
  expect_same(s_alone, run(base_config(), crowd), "S");
}

TEST(BatchInvariance, ChunkedPrefillMatchesOneShot) {
  const std::vector<Spec> specs = {spec("A", 7, 37, 6), spec("B", 8, 22, 6)};
  const Result one_shot = run(base_config(), specs);
  SchedulerConfig chunked = base_config();
  chunked.max_num_batched_tokens = 5;  // chunks of at most 5 tokens, shared by A and B
  const Result small = run(chunked, specs);
  chunked.max_num_batched_tokens = 16;
  chunked.long_prefill_token_threshold = 7;
  const Result capped = run(chunked, specs);
  for (const char* id : {"A", "B"}) {
    expect_same(one_shot, small, id);
    expect_same(one_shot, capped, id);
  }
}

TEST(BatchInvariance, ShuffledKvBlocksGiveIdenticalLogits) {
  const auto w = model();
  const auto tokens = cpu_testing::prompt(9, 29, 300);
  std::vector<std::vector<float>> in_order, shuffled;
  CpuBackend a(w, cpu_testing::options_recording(&in_order, 64, 4));
  CpuBackend b(w, cpu_testing::options_recording(&shuffled, 64, 4));
  std::vector<int32_t> order(8), scrambled = {41, 3, 60, 17, 9, 33, 1, 58};
  std::iota(order.begin(), order.end(), 1);
  // Prefill chunks of 6 then position-by-position decode, in both placements.
  cpu_testing::run_direct(a, tokens, order, 6, 12);
  cpu_testing::run_direct(b, tokens, scrambled, 6, 12);
  ASSERT_EQ(in_order.size(), 29u - 11u);
  EXPECT_EQ(in_order, shuffled);
}

TEST(BatchInvariance, PrefixCacheHitMatchesRecompute) {
  SchedulerConfig cfg = base_config();
  cfg.enable_prefix_caching = true;
  const auto shared = cpu_testing::prompt(10, 18, 300);
  Spec first{"P", shared, 5};
  Spec second{"Q", shared, 5};
  second.arrive_step = 40;  // after P finished: its blocks stay cached
  std::vector<int32_t> longer = shared;
  for (int32_t t : cpu_testing::prompt(11, 7, 300)) longer.push_back(t);
  Spec third{"R", longer, 5};
  third.arrive_step = 40;
  const Result cached = run(cfg, {first, second, third});
  EXPECT_EQ(cached.cached.at("Q"), 16);  // 4 of the 5 blocks (never the last token)
  EXPECT_EQ(cached.cached.at("R"), 16);
  cfg.enable_prefix_caching = false;
  const Result fresh = run(cfg, {first, second, third});
  EXPECT_LE(fresh.cached.at("Q"), 0);
  for (const char* id : {"P", "Q", "R"}) expect_same(cached, fresh, id);
  ASSERT_EQ(cached.logits.at("P").size(), cached.logits.at("Q").size());
  EXPECT_EQ(cached.logits.at("P"), cached.logits.at("Q"));
}

TEST(BatchInvariance, PreemptedAndRecomputedRequestYieldsTheSameTokens) {
  std::vector<Spec> specs = {spec("A", 12, 10, 14), spec("B", 13, 10, 14), spec("C", 14, 6, 14)};
  specs[1].temperature = 0.8;  // a sampled request recomputes to the same draws
  specs[1].seed = 77;
  const Result roomy = run(base_config(), specs);
  SchedulerConfig tight = base_config();
  tight.num_gpu_blocks = 12;  // 11 usable blocks of 4: not enough for all three to finish
  const Result squeezed = run(tight, specs);
  int32_t preemptions = 0;
  for (const auto& [id, n] : squeezed.preemptions) preemptions += n;
  ASSERT_GT(preemptions, 0) << "the tight configuration must force a preemption";
  for (const char* id : {"A", "B", "C"}) expect_same(roomy, squeezed, id);
}

}  // namespace
}  // namespace llm
