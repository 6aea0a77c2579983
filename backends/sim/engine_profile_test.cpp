// Engine profiles: a written profile reads back equal and drives replays through --profile; every
// bad file is refused naming the file and the field.
#include "backends/sim/engine_profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/sim/resolve_engine_args.h"
#include "core/engine_args.h"

namespace llm {
namespace {

EngineProfile example() {
  EngineProfile p;
  p.source = "cpu backend, test";
  p.model = "tiny";
  p.step = FittedStepModel{2e6, 1e5, 3e5, 32, 20, 1.5, 4e5, 2};
  p.async_scheduling = true;
  p.num_gpu_blocks = 512;
  p.block_size = 16;
  p.kv_cache_dtype = "float32";
  p.max_model_len = 1024;
  p.vocab_size = 1000;
  p.max_num_seqs = 8;
  p.max_num_batched_tokens = 512;
  p.fit = ProfileFit{120, 0.02, 0.05, 0.11};
  p.step.multi_token_ns = 6e5;
  p.step_noise = StepTimeNoise{{0.1, 0.5, 0.9}, {0.9, 1.0, 1.3}};
  return p;
}

// ctest runs each test in its own process, in parallel: the file is named after the test too, so
// two tests writing "bad" never read each other's file.
std::string write(const std::string& name, const std::string& text) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string path = ::testing::TempDir() + "engine_profile_" + test + "_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& text) {
  const std::string path = write("bad", text);
  try {
    load_engine_profile(path);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    return what.rfind(path, 0) == 0 ? what.substr(path.size()) : "no file name: " + what;
  }
  return "";
}

TEST(EngineProfile, WhatIsWrittenReadsBackEqual) {
  const EngineProfile p = example();
  const EngineProfile q = load_engine_profile(write("round_trip", engine_profile_json(p)));
  EXPECT_EQ(engine_profile_json(q), engine_profile_json(p));
  EXPECT_EQ(q.step.per_attention_pair_ns, 1.5);
  EXPECT_EQ(q.max_num_seqs, 8);
  EXPECT_TRUE(q.async_scheduling);
  EXPECT_EQ(q.step.multi_token_ns, 6e5);
  ASSERT_TRUE(q.step_noise.has_value());
  EXPECT_EQ(q.step_noise->ratios, (std::vector<double>{0.9, 1.0, 1.3}));
}

TEST(EngineProfile, AProfileWrittenBeforeTheMultiTokenTermAndTheNoiseStillReads) {
  nlohmann::json j = nlohmann::json::parse(engine_profile_json(example()));
  j["step_time"].erase("multi_token_ns");
  j.erase("step_time_noise");
  const EngineProfile q = load_engine_profile(write("older", j.dump()));
  EXPECT_EQ(q.step.multi_token_ns, 0);
  EXPECT_FALSE(q.step_noise.has_value());
  EXPECT_EQ(engine_profile_json(q).find("step_time_noise"), std::string::npos);
}

// The API server's block (calibrate measures it) reads back, reaches the resolved engine, and a
// profile without one (every profile written before it) resolves to none: a replay with it is
// as before.
TEST(EngineProfile, TheApiServerBlockReadsBackAndReachesTheEngine) {
  EngineProfile p = example();
  ApiServerCosts api;
  api.hop_ns = 2.5e6;
  api.per_prompt_token_ns = 120;
  api.response_ns = 0.8e6;
  api.source = "probe";
  p.api_server = api;
  const std::string path = write("api", engine_profile_json(p));
  const EngineProfile q = load_engine_profile(path);
  ASSERT_TRUE(q.api_server.has_value());
  EXPECT_EQ(*q.api_server, api);
  EngineArgs a;
  a.profile = path;
  EXPECT_EQ(resolve_engine_args(a).api_server, api);
  a.profile = write("no_api", engine_profile_json(example()));
  EXPECT_FALSE(resolve_engine_args(a).api_server.has_value());
  nlohmann::json bad = nlohmann::json::parse(engine_profile_json(p));
  bad["api_server"]["hop_ns"] = -1;
  EXPECT_NE(error_of(bad.dump()).find(": api_server: field 'hop_ns': must be a finite number"),
            std::string::npos)
      << error_of(bad.dump());
}

TEST(EngineProfile, EveryBadFileIsRefusedNamingTheField) {
  const nlohmann::json good = nlohmann::json::parse(engine_profile_json(example()));
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return j.dump();
  };
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"{", ": invalid JSON"},
      {"[]", ": expected a JSON object"},
      {with([](auto& j) { j.erase("llmsim_profile"); }),
       ": missing required field 'llmsim_profile'"},
      {with([](auto& j) { j["llmsim_profile"] = 2; }),
       ": field 'llmsim_profile': this llmsim reads version 1, got 2"},
      {with([](auto& j) { j["bogus"] = 1; }), ": unknown field 'bogus'"},
      {with([](auto& j) { j.erase("step_time"); }), ": missing required field 'step_time'"},
      {with([](auto& j) { j["step_time"].erase("per_token_ns"); }),
       ": step_time: missing required field 'per_token_ns'"},
      {with([](auto& j) { j["step_time"]["per_token_ns"] = -3; }),
       ": step_time: field 'per_token_ns': must be a finite number >= 0"},
      {with([](auto& j) { j["step_time"]["per_token_ns"] = "fast"; }),
       ": step_time: field 'per_token_ns': expected a number, got string"},
      {with([](auto& j) {
         for (auto& [k, v] : j["step_time"].items()) v = 0;
       }),
       ": step_time: field 'overhead_ns': the model prices the smallest step"},
      {with([](auto& j) { j["engine"]["num_gpu_blocks"] = 1; }),
       ": engine: field 'num_gpu_blocks': must be at least 2, got 1"},
      {with([](auto& j) { j["engine"]["block_size"] = 0; }),
       ": engine: field 'block_size': must be > 0"},
      {with([](auto& j) { j["engine"]["vocab_size"] = 1.5; }),
       ": engine: field 'vocab_size': expected an integer, got number"},
      {with([](auto& j) { j["engine"]["max_num_seqs"] = 0; }),
       ": engine: field 'max_num_seqs': must be > 0"},
      {with([](auto& j) { j["engine"]["colour"] = "red"; }), ": engine: unknown field 'colour'"},
      {with([](auto& j) { j["fit"] = 3; }), ": field 'fit': expected an object, got number"},
      {with([](auto& j) { j["step_time"]["multi_token_ns"] = -1; }),
       ": step_time: field 'multi_token_ns': must be a finite number >= 0"},
      {with([](auto& j) { j["step_time_noise"].erase("ratios"); }),
       ": step_time_noise: missing required field 'ratios'"},
      {with([](auto& j) { j["step_time_noise"]["ratios"] = 1.0; }),
       ": step_time_noise: field 'ratios': expected an array of numbers, got number"},
      {with([](auto& j) { j["step_time_noise"]["ratios"][1] = "x"; }),
       ": step_time_noise: field 'ratios': expected an array of numbers, got an element that is "
       "string"},
      {with([](auto& j) { j["step_time_noise"]["ratios"][1] = 2.0; }),
       ": step_time_noise: field 'ratios': must not decrease"},
      {with([](auto& j) { j["step_time_noise"]["probabilities"][0] = 1.5; }),
       ": step_time_noise: field 'probabilities': each must be in (0, 1)"},
      {with([](auto& j) { j["step_time_noise"]["spread"] = 1; }),
       ": step_time_noise: unknown field 'spread'"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(c.text);
    EXPECT_EQ(error.substr(0, c.error.size()), c.error) << c.text;
  }
  EXPECT_EQ(error_of(good.dump()), "");
}

TEST(EngineProfile, AReplayWithTheProfileFollowsItsFactsUnlessAFlagOverridesOne) {
  const std::string path = write("args", engine_profile_json(example()));
  EngineArgs a;
  a.profile = path;
  ResolvedEngine r = resolve_engine_args(a);
  EXPECT_TRUE(r.deployment.fitted.has_value());
  EXPECT_TRUE(r.deployment.step_noise.has_value());
  EXPECT_EQ(r.scheduler.num_gpu_blocks, 512);
  EXPECT_EQ(r.scheduler.block_size, 16);
  EXPECT_EQ(r.scheduler.max_num_seqs, 8);
  EXPECT_EQ(r.scheduler.max_num_batched_tokens, 512);
  EXPECT_EQ(r.scheduler.max_model_len, 1024);
  EXPECT_EQ(r.deployment.model.vocab, 1000);
  EXPECT_EQ(r.kv_cache_dtype, "float32");
  EXPECT_EQ(r.model_name, "tiny");
  a.max_num_seqs = 4;
  a.block_size = 32;  // the same KV memory in blocks twice as large
  a.kv_cache_dtype = "auto";
  r = resolve_engine_args(a);
  EXPECT_EQ(r.scheduler.max_num_seqs, 4);
  EXPECT_EQ(r.scheduler.num_gpu_blocks, 256);
  EXPECT_EQ(r.kv_cache_dtype, "auto");
  a.num_gpu_blocks_override = 100;
  EXPECT_EQ(resolve_engine_args(a).scheduler.num_gpu_blocks, 100);
  a.no_step_noise = true;  // --no-step-noise: the model's times alone
  EXPECT_FALSE(resolve_engine_args(a).deployment.step_noise.has_value());
  EngineArgs presets;
  presets.no_step_noise = true;
  EXPECT_THROW(resolve_engine_args(presets), UsageError);
}

TEST(EngineProfile, AProfileReplacesGpuAndModelAndIsNamedWhenItIsBad) {
  EngineArgs a;
  a.profile = write("with_gpu", engine_profile_json(example()));
  a.gpu_or_model_given = true;
  EXPECT_THROW(resolve_engine_args(a), UsageError);
  a.gpu_or_model_given = false;
  a.profile = ::testing::TempDir() + "no_such_profile.json";
  try {
    resolve_engine_args(a);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--profile: " + a.profile + ": cannot open file", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace llm
