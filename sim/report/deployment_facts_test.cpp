// Tests for deployment_facts.h: a report names the GPU, model, TP, engines, GPUs and KV blocks,
// and every engine argument as it applied, with the defaults marked; and the SLO verdict.
#include "sim/report/deployment_facts.h"

#include <gtest/gtest.h>

#include <string>

namespace llm {
namespace {

std::string fact(const ReportFacts& facts, const std::string& label) {
  for (const auto& [l, v] : facts) {
    if (l == label) return v;
  }
  return "(missing " + label + ")";
}

TEST(DeploymentFacts, NameTheDeploymentAndMarkTheDefaults) {
  EngineArgs given;
  given.max_num_seqs = 64;
  given.tensor_parallel_size = 2;
  const ResolvedEngine resolved = resolve_engine_args(given);
  const ReportFacts f = deployment_facts(given, resolved, 3, "least-outstanding");
  EXPECT_EQ(fact(f, "GPU"), resolved.deployment.gpu.name);
  EXPECT_FALSE(resolved.deployment.gpu.name.empty());
  EXPECT_EQ(fact(f, "Model"), resolved.model_name);
  EXPECT_EQ(fact(f, "Tensor parallel"), "2");
  EXPECT_EQ(fact(f, "Engines (data parallel)"), "3, routed by least-outstanding");
  EXPECT_EQ(fact(f, "GPUs"), "6");
  EXPECT_EQ(fact(f, "KV blocks per engine"),
            std::to_string(resolved.scheduler.num_gpu_blocks) + " (default) of 16 tokens");
  const std::string args = fact(f, "Engine arguments (* default)");
  EXPECT_NE(args.find("--max-num-seqs 64 "), std::string::npos) << args;  // given: no star
  EXPECT_NE(args.find("--max-num-batched-tokens " +
                      std::to_string(resolved.scheduler.max_num_batched_tokens) + "*"),
            std::string::npos)
      << args;
  EXPECT_NE(args.find("--gpu-memory-utilization 0.92*"), std::string::npos) << args;
  EXPECT_NE(args.find("--enable-prefix-caching"), std::string::npos) << args;
  EXPECT_EQ(fact(deployment_facts(given, resolved, 1, "round-robin"), "Engines (data parallel)"),
            "1");
  EXPECT_EQ(args.find("--max-num-active-seqs"), std::string::npos) << args;
  EXPECT_EQ(args.find("--no-scheduler-reserve-full-isl"), std::string::npos) << args;
}

// The admission knobs appear when they were changed from vLLM's defaults.
TEST(DeploymentFacts, NameTheAdmissionKnobsWhenSet) {
  EngineArgs given;
  given.max_num_seqs = 64;
  given.max_num_active_seqs = 16;
  given.scheduler_reserve_full_isl = false;
  const ResolvedEngine resolved = resolve_engine_args(given);
  ASSERT_EQ(resolved.scheduler.max_num_active_seqs, 16);
  ASSERT_FALSE(resolved.scheduler.scheduler_reserve_full_isl);
  const std::string args =
      fact(deployment_facts(given, resolved, 1, "round-robin"), "Engine arguments (* default)");
  EXPECT_NE(args.find(" --max-num-active-seqs 16"), std::string::npos) << args;
  EXPECT_NE(args.find(" --no-scheduler-reserve-full-isl"), std::string::npos) << args;
}

TEST(DeploymentFacts, TheSloVerdictNamesTheTargetsAndWhatWasMissed) {
  EXPECT_TRUE(slo_facts({}, {}).empty());
  const std::vector<SloTarget> targets = parse_slo("ttft_p99=2s,tpot_p99=100ms");
  std::vector<SloResult> results(2);
  results[0].key = "ttft_p99", results[0].value = 1.0, results[0].target = 2.0,
  results[0].met = true;
  results[1].key = "tpot_p99", results[1].value = 0.193, results[1].target = 0.1;
  const ReportFacts f = slo_facts(targets, results);
  EXPECT_EQ(fact(f, "SLO targets"), describe_slo(targets));
  EXPECT_EQ(fact(f, "SLO verdict"), "MISSED: tpot_p99 193 ms > 100 ms");
  results[1].met = true;
  EXPECT_EQ(fact(slo_facts(targets, results), "SLO verdict"), "met");
}

}  // namespace
}  // namespace llm
