// The replay driver's mapping from trace requests to engine requests (make_request) and what it
// means for a replay: here, that a trace's cache_salt reaches the prefix cache.
#include "sim/replay/replay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/sim/presets.h"

namespace llm {
namespace {

ReplayConfig roomy_engine() {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 512;
  c.scheduler.num_gpu_blocks = 200;
  c.scheduler.max_num_batched_tokens = 512;
  c.deployment.gpu = *find_gpu_preset("H200");
  c.deployment.model = *find_model_preset("Llama-3.2-1B");
  return c;
}

TraceRequest shared_prefix_request(const std::string& id, Nanos arrival, const std::string& salt) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival;
  r.prompt_len = 64;
  r.output_len = 2;
  r.prefix_hash_ids = {1, 2, 3, 4};
  r.hash_block_size = 16;
  r.cache_salt = salt;
  return r;
}

TEST(Replay, MakeRequestCarriesTheTracesCacheSalt) {
  EXPECT_EQ(make_request(shared_prefix_request("a", 0, "tenant-1"), 0)->cache_salt, "tenant-1");
  EXPECT_EQ(make_request(shared_prefix_request("a", 0, ""), 0)->cache_salt, "");
}

// Two requests with the same prompt identity, the second arriving after the first has finished:
// it hits the first's 3 full blocks (never the last prompt token) only when their salts are equal.
TEST(Replay, RequestsWithTheSamePrefixShareBlocksOnlyWithTheSameCacheSalt) {
  struct Row {
    const char* salt_a;
    const char* salt_b;
    int64_t hits;
  };
  const std::vector<Row> rows = {
      {"", "", 48},        {"tenant-1", "tenant-1", 48}, {"tenant-1", "tenant-2", 0},
      {"tenant-1", "", 0}, {"", "tenant-1", 0},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.salt_a) + " / " + row.salt_b);
    Trace trace;
    trace.requests = {shared_prefix_request("a", 0, row.salt_a),
                      shared_prefix_request("b", 1'000'000'000, row.salt_b)};
    EngineObserver quiet;
    const ReplayTotals totals = run_replay(trace, roomy_engine(), quiet);
    EXPECT_EQ(totals.sum().prefix_queries, 128);
    EXPECT_EQ(totals.sum().prefix_hits, row.hits);
  }
}

}  // namespace
}  // namespace llm
