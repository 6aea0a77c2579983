// The recorded-run readers on the hand-written samples in sim/recorded/testdata (exact traces and
// figures), their refusals (file, line, field), and a prediction of each sample.
#include "sim/recorded/recorded_runs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "sim/recorded/recorded_replay.h"
#include "sim/recorded/shared_prefix_load.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

const std::string kRecordedData = std::string(LLM_SOURCE_DIR) + "/sim/recorded/testdata";

RecordedOptions recorded_preset_options() {
  RecordedOptions o;
  o.model = "Llama-3.1-8B";
  o.gpu = "H100-SXM";
  return o;
}

TEST(RecordedRuns, VllmBenchResultKeepsTheSuccessesAtTheirSendTimes) {
  const auto runs =
      read_recorded_runs(kRecordedData + "/vllm-bench-result.json", recorded_preset_options());
  ASSERT_EQ(runs.size(), 1u);
  const RecordedRun& r = runs[0];
  EXPECT_EQ(r.kind, "vllm-bench");
  EXPECT_EQ(r.view, MeasuredView::kClient);
  EXPECT_EQ(r.failed, 1);
  ASSERT_EQ(r.trace.requests.size(), 5u);
  const std::vector<int64_t> arrivals = {0, 210'000'000, 450'000'000, 800'000'000, 1'300'000'000};
  for (size_t i = 0; i < arrivals.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(r.trace.requests[i].arrival_ns), arrivals[i], 1000) << i;
  }
  EXPECT_EQ(r.trace.requests[3].prompt_len, 250);
  EXPECT_EQ(r.trace.requests[3].output_len, 80);
  EXPECT_NEAR(*r.measured.ttft_mean, (31 + 35 + 29 + 33 + 41) / 5.0, 1e-9);
  EXPECT_NEAR(*r.measured.e2e_p50, 520, 1e-9);
  EXPECT_NEAR(*r.measured.tpot_mean,
              ((350 - 31) / 39.0 + (520 - 35) / 59.0 + (190 - 29) / 19.0 + (690 - 33) / 79.0 +
               (550 - 41) / 59.0) /
                  5,
              1e-9);
  EXPECT_EQ(r.engine.gpu, "H100-SXM");
  EXPECT_EQ(r.engine.model, "Llama-3.1-8B");
}

TEST(RecordedRuns, InferencePerfRunIsRebuiltAsTheGeneratorSendsIt) {
  const auto runs =
      read_recorded_runs(kRecordedData + "/inference-perf-run", recorded_preset_options());
  ASSERT_EQ(runs.size(), 1u);
  const RecordedRun& r = runs[0];
  EXPECT_EQ(r.kind, "inference-perf");
  EXPECT_EQ(r.name, "inference-perf-run");
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].end - r.stages[0].first, 20u);  // 5/s for 4 s
  EXPECT_EQ(r.stages[1].end - r.stages[1].first, 20u);  // 10/s for 2 s
  EXPECT_EQ(r.engine.max_num_seqs, 64);
  EXPECT_EQ(r.engine.max_model_len, 4096);
  EXPECT_EQ(r.engine.gpu_memory_utilization, 0.9);
  const auto& q = r.trace.requests;
  // Stage 1 starts after stage 0's 4 s and its slowest request (0.14 s x 1.25); each stage's
  // first request comes one gap in, its last at its end (ConstantLoadTimer).
  EXPECT_GT(q[0].arrival_ns, 0);
  EXPECT_GT(q[20].arrival_ns, 4'175'000'000);
  EXPECT_EQ(q[19].arrival_ns, 4'000'000'000);
  for (const TraceRequest& t : q) {
    EXPECT_EQ(t.prompt_len, 161);  // 1.04 x (50 + 100) + 5
    EXPECT_EQ(t.output_len, 20);
    EXPECT_EQ(t.prefix_hash_ids.size(), 11u);  // ceil(161 / 16)
  }
  // Slot k mod 6: request 6 repeats request 0; requests 0 and 1 share their group's system
  // prompt (3 whole blocks of BOS + 52 tokens), 0 and 3 are in different groups.
  EXPECT_EQ(q[0].prefix_hash_ids, q[6].prefix_hash_ids);
  EXPECT_EQ(q[0].prefix_hash_ids[2], q[1].prefix_hash_ids[2]);
  EXPECT_NE(q[0].prefix_hash_ids[3], q[1].prefix_hash_ids[3]);
  EXPECT_NE(q[0].prefix_hash_ids[0], q[3].prefix_hash_ids[0]);
  EXPECT_NEAR(*r.stages[0].measured.ttft_mean, 25, 1e-9);
  EXPECT_NEAR(*r.measured.e2e_mean, 145, 1e-9);
  EXPECT_NEAR(*r.measured.ttft_p99, 26 * 1.8, 1e-9);
  // The file's TPOT is per line of the stream (two per token): 2n + 1 gaps of a 20-token request
  // against llmsim's n - 1.
  EXPECT_NEAR(*r.stages[0].measured.tpot_mean, 6 * 41.0 / 19.0, 1e-9);
}

// results/config.yaml (what inference-perf ran with) decides the prompt groups: older versions
// did not read profile.yaml's num_unique_system_prompts and ran their 10 x 10 defaults.
TEST(RecordedRuns, InferencePerfRunTakesThePromptGroupsItRanWith) {
  const fs::path dir =
      fs::temp_directory_path() / ("recorded-resolved-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kRecordedData + "/inference-perf-run", dir, fs::copy_options::recursive);
  std::ofstream(dir / "results" / "config.yaml")
      << "api:\n  type: completion\ndata:\n  type: shared_prefix\n  path: null\n"
         "  shared_prefix:\n    num_groups: 2\n    num_prompts_per_group: 5\n"
         "    system_prompt_len: 50\n    question_len: 100\n    output_len: 20\n"
         "load:\n  type: constant\n";
  const auto runs = read_recorded_runs(dir.string(), recorded_preset_options());
  fs::remove_all(dir);
  ASSERT_EQ(runs.size(), 1u);
  const auto& q = runs[0].trace.requests;
  // 10 slots, not profile.yaml's 6: request 10 repeats request 0, request 6 does not.
  EXPECT_EQ(q[0].prefix_hash_ids, q[10].prefix_hash_ids);
  EXPECT_NE(q[0].prefix_hash_ids, q[6].prefix_hash_ids);
  EXPECT_EQ(q[0].prefix_hash_ids[2], q[4].prefix_hash_ids[2]);  // one group of 5
  bool noted = false;
  for (const std::string& n : runs[0].notes) {
    noted = noted || n.find("2 groups x 5, not profile.yaml's 2 x 3") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(RecordedRuns, VllmRequestLogIsMeasuredFromTheEnginesQueue) {
  RecordedOptions o = recorded_preset_options();
  o.gpu = "";  // the card comes from config.json
  const auto runs = read_recorded_runs(kRecordedData + "/vllm-log", o);
  ASSERT_EQ(runs.size(), 1u);
  const RecordedRun& r = runs[0];
  EXPECT_EQ(r.view, MeasuredView::kEngine);
  EXPECT_EQ(r.engine.gpu, "H100-SXM");
  EXPECT_EQ(r.engine.max_num_seqs, 16);
  ASSERT_EQ(r.trace.requests.size(), 3u);
  EXPECT_EQ(
      r.trace.requests[2].prefix_hash_ids,
      (std::vector<uint64_t>{0xaaaaaaaaaaaa, 0xcccccccccccc, 0xdddddddddddd, 0xeeeeeeeeeeee}));
  EXPECT_EQ(r.trace.requests[1].arrival_ns, 20'000'000);
  EXPECT_NEAR(*r.measured.ttft_mean, (19.5 + 14.7 + 21.6) / 3, 1e-6);
  EXPECT_NEAR(*r.measured.e2e_p50, 87.5, 1e-6);  // 87.5, 94.7, 69.6
}

// A folder of runs reads them all.
TEST(RecordedRuns, AFolderReadsEveryRunInIt) {
  RecordedOptions o = recorded_preset_options();
  const auto runs = read_recorded_runs(kRecordedData, o);
  std::vector<std::string> kinds;
  for (const RecordedRun& r : runs) kinds.push_back(r.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"inference-perf", "vllm-request-log"}));
}

// Each sample replays, every request completes, and the API server adds its time to what the
// client measured (TTFT and E2E from the send) but not to what vLLM's own timestamps measure.
TEST(RecordedRuns, EachSamplePredicts) {
  for (const char* sample : {"vllm-bench-result.json", "inference-perf-run", "vllm-log"}) {
    SCOPED_TRACE(sample);
    const RecordedRun run =
        read_recorded_runs(kRecordedData + "/" + sample, recorded_preset_options())[0];
    ReplayConfig c;
    c.scheduler.block_size = 16;
    c.scheduler.max_model_len = 4096;
    c.scheduler.num_gpu_blocks = 4000;
    c.scheduler.max_num_batched_tokens = 2048;
    c.scheduler.max_num_seqs = 64;
    c.deployment.gpu = *find_gpu_preset("H100-SXM");
    c.deployment.model = *find_model_preset("Llama-3.1-8B");
    const RecordedPrediction plain = predict_recorded_run(run, c);
    EXPECT_EQ(plain.completed, static_cast<int64_t>(run.trace.requests.size()));
    ASSERT_TRUE(plain.whole.ttft_mean && plain.whole.e2e_p99 && plain.whole.tpot_mean);
    EXPECT_EQ(plain.stages.size(), run.stages.size());
    ApiServerCosts api;
    api.request_ns = 2e6;
    api.hop_ns = 1e6;
    c.api_server = api;
    const RecordedPrediction with = predict_recorded_run(run, c);
    if (run.view == MeasuredView::kClient) {
      EXPECT_GE(*with.whole.ttft_mean, *plain.whole.ttft_mean + 2.9);
    } else {
      EXPECT_LT(*with.whole.ttft_mean, *plain.whole.ttft_mean + 2.9);
    }
  }
}

// A client timeout aborts the requests still unanswered then; they count in no figure.
TEST(RecordedRuns, AClientTimeoutAbortsTheSlowRequests) {
  RecordedRun run =
      read_recorded_runs(kRecordedData + "/vllm-bench-result.json", recorded_preset_options())[0];
  run.client_timeout_ns = 100'000'000;  // 100 ms: shorter than every E2E here
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 4096;
  c.scheduler.num_gpu_blocks = 4000;
  c.scheduler.max_num_batched_tokens = 2048;
  c.deployment.gpu = *find_gpu_preset("H100-SXM");
  c.deployment.model = *find_model_preset("Llama-3.1-8B");
  const RecordedPrediction p = predict_recorded_run(run, c);
  EXPECT_EQ(p.aborted, 5);
  EXPECT_EQ(p.completed, 0);
  EXPECT_FALSE(p.whole.ttft_mean.has_value());
}

// Bad inputs: a copy of a sample with one file changed is refused naming the file, the line
// where there is one, and the field.
struct RecordedBadCase {
  const char* label;
  const char* sample;
  const char* file;  // relative to the copy
  std::function<std::string(std::string)> edit;
  const char* message;  // substrings expected
};

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(RecordedRuns, BadInputIsRefusedNamingFileLineAndField) {
  const std::vector<RecordedBadCase> cases = {
      {"nested exp-config", "inference-perf-run", "exp-config.yaml",
       [](std::string s) { return s + "server:\n  port: 8000\n"; },
       "exp-config.yaml:7: server: no value"},
      {"unknown exp-config key", "inference-perf-run", "exp-config.yaml",
       [](std::string s) { return s + "max_num_seq: 64\n"; }, "max_num_seq: not a field"},
      {"random data", "inference-perf-run", "profile.yaml",
       [](std::string s) {
         return replace_once(s, "\"type\":\"shared_prefix\"", "\"type\":\"random\"");
       },
       "profile.yaml: data.type: only shared_prefix"},
      {"zero rate", "inference-perf-run", "profile.yaml",
       [](std::string s) { return replace_once(s, "\"rate\":5", "\"rate\":0"); },
       "load.stages[0]: rate: expected a number > 0"},
      {"lifecycle without ttft", "inference-perf-run", "results/stage_1_lifecycle_metrics.json",
       [](std::string s) { return replace_once(s, "\"time_to_first_token\"", "\"ttft\""); },
       "stage_1_lifecycle_metrics.json: successes.latency: time_to_first_token: missing"},
      {"bad hash", "vllm-log", "trace.csv",
       [](std::string s) { return replace_once(s, "cccccccccccc", "cccc-ccccccc"); },
       "trace.csv:4: block_hash_chain_sha256_12hex"},
      {"short row", "vllm-log", "trace.csv",
       [](std::string s) { return replace_once(s, "1,20000000,40,12,", "1,20000000,40,"); },
       "trace.csv:3: 6 fields, the header has 7"},
      {"missing timestamp", "vllm-log", "vllm/requests.jsonl",
       [](std::string s) { return replace_once(s, "\"first_token_ts\": 500.0350, ", ""); },
       "requests.jsonl:2: first_token_ts: missing"},
      {"lengths differ", "vllm-log", "vllm/requests.jsonl",
       [](std::string s) { return replace_once(s, "\"output_toks\": 8", "\"output_toks\": 9"); },
       "requests.jsonl:3: input_toks/output_toks: differ from trace.csv"},
      {"data parallel", "vllm-log", "vllm/meta.json",
       [](std::string s) {
         return replace_once(s, "\"data_parallel_size\": 1", "\"data_parallel_size\": 2");
       },
       "engine_kwargs: data_parallel_size: only 1"},
      {"closed loop", "vllm-bench-result.json", "",
       [](std::string s) {
         s = replace_once(s, "\"max_concurrency\": null", "\"max_concurrency\": 4");
         return replace_once(s, "\"start_times\"", "\"start_times_\"");
       },
       "max_concurrency: 4 makes a closed loop"},
      {"ragged arrays", "vllm-bench-result.json", "",
       [](std::string s) {
         return replace_once(s, "\"output_lens\": [40, ", "\"output_lens\": [");
       },
       "output_lens: 5 entries, input_lens has 6"},
      {"ttft after latency", "vllm-bench-result.json", "",
       [](std::string s) { return replace_once(s, "0.031,", "0.9,"); },
       "ttfts[0]: expected 0 < ttft"},
  };
  for (const RecordedBadCase& c : cases) {
    SCOPED_TRACE(c.label);
    const fs::path dir = fs::temp_directory_path() / ("recorded-bad-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path copy = dir / fs::path(c.sample).filename();
    fs::copy(fs::path(kRecordedData) / c.sample, copy, fs::copy_options::recursive);
    const fs::path target = std::string(c.file).empty() ? copy : copy / c.file;
    std::ifstream in(target);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    std::ofstream(target, std::ios::trunc) << c.edit(text);
    RecordedOptions o = recorded_preset_options();
    if (std::string(c.sample) == "vllm-log") o.gpu = "";
    try {
      read_recorded_runs(copy.string(), o);
      ADD_FAILURE() << "accepted";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
  }
}

TEST(RecordedRuns, APathWithoutRunsSaysWhatItLookedFor) {
  const fs::path empty =
      fs::temp_directory_path() / ("recorded-empty-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  try {
    read_recorded_runs(empty.string(), recorded_preset_options());
    ADD_FAILURE() << "accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("no recorded run found"), std::string::npos);
  }
  fs::remove_all(empty);
}

// The shared_prefix generator: every stage sends rate x duration requests within its duration,
// arrivals never decrease, and prompt slots cycle.
TEST(SharedPrefixLoad, StagesSpanTheirDurationAndSlotsCycle) {
  SharedPrefixData d{3, 2, 100, 400, 50};
  std::vector<std::pair<size_t, size_t>> ranges;
  const Trace t = shared_prefix_trace(d, {{5, 10}, {20, 5}}, {2.5}, 7, &ranges);
  ASSERT_EQ(t.requests.size(), 150u);
  EXPECT_EQ(ranges, (std::vector<std::pair<size_t, size_t>>{{0, 50}, {50, 150}}));
  for (size_t i = 1; i < t.requests.size(); ++i) {
    EXPECT_GE(t.requests[i].arrival_ns, t.requests[i - 1].arrival_ns);
  }
  // inference-perf's ConstantLoadTimer: the first request one gap in, the last at the end.
  EXPECT_GT(t.requests[0].arrival_ns, 0);
  EXPECT_EQ(t.requests[49].arrival_ns, 10'000'000'000);
  EXPECT_GT(t.requests[50].arrival_ns, 12'500'000'000);
  EXPECT_EQ(t.requests[149].arrival_ns, 17'500'000'000);
  EXPECT_EQ(t.requests[0].prefix_hash_ids, t.requests[6].prefix_hash_ids);
  EXPECT_NE(t.requests[0].prefix_hash_ids, t.requests[1].prefix_hash_ids);
  // Each stage numbers its requests from 0: stage 1's first request is on slot 0 again (stage 0
  // ended on slot 50 mod 6 = 2).
  EXPECT_EQ(t.requests[50].prefix_hash_ids, t.requests[0].prefix_hash_ids);
  EXPECT_EQ(shared_prefix_prompt_len(d), 525);  // 1.04 x 500 + 5
}

}  // namespace
}  // namespace llm
