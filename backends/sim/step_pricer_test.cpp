// Tests of StepPricer: it must price every batch exactly as step_time_ns does (the same
// nanoseconds, the same exceptions), whatever it remembered from earlier steps.
// Thread-safety: single-threaded tests.
#include "backends/sim/step_pricer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "backends/sim/presets.h"

// A named namespace: the unity build joins this file with cost_model_test.cpp's helpers.
namespace llm::step_pricer_test {
namespace {

// "MoE" is Llama-3.1-8B with 30 of its 32 MLPs as 8 experts (top 2) and a shared expert, so that
// the experts' terms are priced too (no preset is a mixture of experts).
Deployment deploy(const std::string& gpu, const std::string& model, int64_t tp = 1) {
  Deployment d;
  d.gpu = load_gpu_profile(gpu);
  d.model = load_model_shape(model == "MoE" ? "Llama-3.1-8B" : model);
  if (model == "MoE") {
    d.model.moe_layers = 30;
    d.model.num_experts = 8;
    d.model.experts_per_token = 2;
    d.model.expert_ffn = 4096;
    d.model.shared_expert_ffn = 1024;
  }
  d.tensor_parallel_size = tp;
  return d;
}

struct Seq {
  int64_t cached;
  int64_t fresh;
  bool samples;
};

BatchCost cost_of(const std::vector<Seq>& seqs) {
  BatchCost b;
  for (const Seq& s : seqs) b.add(s.cached, s.fresh, s.samples);
  return b;
}

// Whatever step_time_ns answers, or "throws".
std::string direct(const Deployment& d, const BatchCost& b) {
  try {
    return std::to_string(step_time_ns(d, b));
  } catch (const std::invalid_argument&) {
    return "throws";
  }
}

std::string priced(StepPricer& pricer, const BatchCost& b) {
  try {
    return std::to_string(pricer.step_time_ns(b));
  } catch (const std::invalid_argument&) {
    return "throws";
  }
}

TEST(StepPricer, PricesLikeStepTimeNsTable) {
  struct Case {
    const char* gpu;
    const char* model;
    int64_t tp;
    std::vector<Seq> seqs;
  };
  const std::vector<Case> cases = {
      {"H200", "Llama-3.1-8B", 1, {}},                                       // empty: 0
      {"H200", "Llama-3.1-8B", 1, {{1000, 1, true}, {20, 1, true}}},         // decodes
      {"H200", "Llama-3.1-8B", 1, {{0, 512, false}, {300, 1, true}}},        // mixed
      {"H200", "Llama-3.1-8B", 1, {{1000, 1, true}, {20, 1, true}}},         // remembered
      {"H100-SXM", "Llama-3.1-70B", 4, {{64, 2048, true}, {900, 1, true}}},  // tensor parallel
      {"H200", "MoE", 2, {{0, 100, true}, {5, 1, true}}},                    // MoE
      {"H200", "MoE", 2, {{0, 100, true}, {5, 1, false}}},                   // MoE, fewer sampled
  };
  for (const Case& c : cases) {
    const Deployment d = deploy(c.gpu, c.model, c.tp);
    StepPricer pricer(d);
    const BatchCost b = cost_of(c.seqs);
    EXPECT_EQ(priced(pricer, b), direct(d, b)) << c.gpu << " " << c.model << " tp" << c.tp;
    EXPECT_EQ(priced(pricer, b), direct(d, b)) << "second time, remembered";
  }
}

TEST(StepPricer, RefusesWhatStepTimeNsRefuses) {
  const Deployment bad_tp = deploy("H200", "Llama-3.1-8B", 0);
  StepPricer bad(bad_tp);
  EXPECT_THROW(bad.step_time_ns(cost_of({{0, 1, true}})), std::invalid_argument);
  EXPECT_THROW(bad.step_time_ns(cost_of({{0, 1, true}})), std::invalid_argument);  // every time

  const Deployment d = deploy("H200", "Llama-3.1-8B");
  StepPricer good(d);
  EXPECT_GT(good.step_time_ns(cost_of({{0, 16, true}})), 0);
  BatchCost negative = cost_of({{0, 16, true}});
  negative.context_tokens = -1;  // after the deployment's check passed once
  EXPECT_THROW(good.step_time_ns(negative), std::invalid_argument);
}

// Any run of steps, on any preset deployment: each step's price is step_time_ns's, so a replay
// with the pricer is byte-identical to one without.
RC_GTEST_PROP(StepPricerProperty, EveryStepPricedLikeStepTimeNs, ()) {
  const std::string gpu = *rc::gen::elementOf(gpu_preset_names());
  std::vector<std::string> models = model_preset_names();
  models.push_back("MoE");
  const std::string model = *rc::gen::elementOf(models);
  const int64_t tp = *rc::gen::element<int64_t>(1, 2, 4, 8);
  Deployment d = deploy(gpu, model, tp);
  d.kv_cache_dtype_bytes = *rc::gen::element<int64_t>(1, 2);
  StepPricer pricer(d);
  const auto steps = *rc::gen::inRange<int>(1, 12);
  for (int step = 0; step < steps; ++step) {
    std::vector<Seq> seqs(*rc::gen::inRange<size_t>(0, 9));
    for (Seq& s : seqs) {
      // Few distinct token counts, so that steps meet remembered ones.
      s = {*rc::gen::inRange<int64_t>(0, 4097), *rc::gen::element<int64_t>(1, 1, 2, 16, 300),
           *rc::gen::arbitrary<bool>()};
    }
    const BatchCost b = cost_of(seqs);
    RC_ASSERT(priced(pricer, b) == direct(d, b));
  }
}

}  // namespace
}  // namespace llm::step_pricer_test
