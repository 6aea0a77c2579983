#include "backends/sim/step_record.h"

#include <gtest/gtest.h>

#include "core/request.h"
#include "core/scheduler.h"

namespace llm {
namespace {

TEST(StepRecord, BatchCostOfAScheduledBatch) {
  Request a, b;
  SchedulerOutput out;
  out.seqs.push_back({&a, 100, 1, true});  // decode at context 100
  out.seqs.push_back({&b, 0, 64, false});  // a prefill chunk that does not reach its end
  const BatchCost c = batch_cost_of(out);
  EXPECT_EQ(c.num_sequences, 2);
  EXPECT_EQ(c.new_tokens, 65);
  EXPECT_EQ(c.context_tokens, 100);
  EXPECT_DOUBLE_EQ(c.attention_pairs, 1 * (100 + 0.5) + 64 * (0 + 32.0));
  EXPECT_EQ(c.sampling_sequences, 1);
}

TEST(StepRecord, JsonLineRoundTrips) {
  StepRecord r;
  r.engine = 1;
  r.step = 42;
  r.start_ns = 123456789;
  r.execute_ns = 20873111;
  r.gap_ns = 412345;
  r.modelled_ns = 777;
  r.batch.add(1840, 1, true);
  r.batch.add(0, 300, true);
  const StepRecord back = parse_step_record(step_record_json(r));
  EXPECT_EQ(back.engine, 1);
  EXPECT_EQ(back.step, 42);
  EXPECT_EQ(back.start_ns, 123456789);
  EXPECT_EQ(back.execute_ns, 20873111);
  EXPECT_EQ(back.gap_ns, 412345);
  EXPECT_EQ(back.modelled_ns, 777);
  EXPECT_EQ(back.batch.num_sequences, 2);
  EXPECT_EQ(back.batch.new_tokens, 301);
  EXPECT_EQ(back.batch.context_tokens, 1840);
  EXPECT_DOUBLE_EQ(back.batch.attention_pairs, r.batch.attention_pairs);
  EXPECT_EQ(back.batch.sampling_sequences, 2);
}

TEST(StepRecord, BadLinesNameTheField) {
  const std::string good =
      R"({"engine":0,"step":1,"start_ns":0,"execute_ns":5,"gap_ns":-1,"modelled_ns":0,"seqs":2,"new_tokens":2,)"
      R"("context_tokens":9,"attention_pairs":10,"sampled":2})";
  EXPECT_NO_THROW(parse_step_record(good));
  const struct {
    std::string line;
    std::string message;
  } cases[] = {
      {"not json", "not JSON"},
      {"[1,2]", "expected a JSON object"},
      {R"({"engine":0})", "missing field 'step'"},
      {R"({"engine":0,"step":1,"start_ns":0,"execute_ns":-5,"gap_ns":-1,"modelled_ns":0,"seqs":2,"new_tokens":2,"context_tokens":9,"attention_pairs":10,"sampled":2})",
       "field 'execute_ns': -5 is below 0"},
      {R"({"engine":0,"step":1,"start_ns":0,"execute_ns":5,"gap_ns":-1,"modelled_ns":0,"seqs":"2","new_tokens":2,"context_tokens":9,"attention_pairs":10,"sampled":2})",
       "field 'seqs': expected an integer"},
      {R"({"engine":0,"step":1,"start_ns":0,"execute_ns":5,"gap_ns":-1,"modelled_ns":0,"seqs":3,"new_tokens":2,"context_tokens":9,"attention_pairs":10,"sampled":2})",
       "field 'new_tokens': fewer than 'seqs'"},
      {R"({"engine":0,"step":1,"start_ns":0,"execute_ns":5,"gap_ns":-1,"modelled_ns":0,"seqs":2,"new_tokens":2,"context_tokens":9,"attention_pairs":-1,"sampled":2})",
       "field 'attention_pairs'"},
      {R"({"engine":0,"step":1,"start_ns":0,"execute_ns":5,"gap_ns":-1,"modelled_ns":0,"seqs":2,"new_tokens":2,"context_tokens":9,"attention_pairs":1,"sampled":3})",
       "field 'sampled': more than 'seqs'"},
  };
  for (const auto& c : cases) {
    try {
      parse_step_record(c.line);
      ADD_FAILURE() << "accepted: " << c.line;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.line << " -> " << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
