// Tests for ArrivalSorter (sim/replay/sorted_arrivals.h): within any memory bound, the order and
// the requests are std::stable_sort's of the whole trace (a RapidCheck property with bounds down
// to one request), every field survives the scratch file, and a stream can be opened again.
#include "sim/replay/sorted_arrivals.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/trace/testing/trace_test_util.h"

namespace llm {
namespace {

std::vector<TraceRequest> sorted_by(size_t in_memory, const std::vector<TraceRequest>& in,
                                    size_t* runs = nullptr) {
  ArrivalSorter sorter(in_memory);
  for (const TraceRequest& r : in) sorter.add(r);
  sorter.finish();
  if (runs) *runs = sorter.runs();
  Trace out = collect_stream(*sorter.open());
  Trace again = collect_stream(*sorter.open());  // each open() reads from the start
  EXPECT_EQ(out.requests.size(), again.requests.size());
  return out.requests;
}

TEST(ArrivalSorter, EveryFieldSurvivesTheScratchFile) {
  TraceRequest a;
  a.id = "req-a";
  a.arrival_ns = 50;
  a.prompt_len = 3;
  a.prompt_tokens = {7, 8, 9};
  a.output_len = 4;
  a.prefix_hash_ids = {1, 18446744073709551615ULL};
  a.hash_block_size = 2;
  a.n = 3;
  a.max_tokens = 9;
  a.priority = -5;
  a.cache_salt = "salt";
  TraceRequest b;
  b.id = "b";
  b.arrival_ns = -20;  // an Azure row before the first
  b.prompt_len = 1;
  b.output_len = 1;
  size_t runs = 0;
  const std::vector<TraceRequest> got = sorted_by(1, {a, b, a}, &runs);
  EXPECT_EQ(runs, 3u);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(testing::same_request(got[0], b));
  EXPECT_TRUE(testing::same_request(got[1], a));
  EXPECT_TRUE(testing::same_request(got[2], a));
  EXPECT_EQ(sorted_by(8, {a, b}).size(), 2u);
}

TEST(ArrivalSorter, AnEmptyTraceSortsToNothing) { EXPECT_TRUE(sorted_by(1, {}).empty()); }

RC_GTEST_PROP(ArrivalSorter, EqualsAStableSortOfTheWholeTrace, ()) {
  const int count = *rc::gen::inRange(0, 300);
  const size_t bound = static_cast<size_t>(*rc::gen::inRange(1, 40));
  std::vector<TraceRequest> in;
  for (int i = 0; i < count; ++i) {
    TraceRequest r;
    r.id = std::to_string(i);  // the read order, to see ties kept in it
    r.arrival_ns = *rc::gen::inRange<int64_t>(-5, 20);
    r.prompt_len = *rc::gen::inRange<int64_t>(1, 50);
    r.output_len = *rc::gen::inRange<int64_t>(1, 50);
    r.cache_salt = *rc::gen::element<std::string>("", "s", "longer salt");
    in.push_back(r);
  }
  std::vector<TraceRequest> want = in;
  std::stable_sort(want.begin(), want.end(), [](const TraceRequest& a, const TraceRequest& b) {
    return a.arrival_ns < b.arrival_ns;
  });
  const std::vector<TraceRequest> got = sorted_by(bound, in);
  RC_ASSERT(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) RC_ASSERT(testing::same_request(got[i], want[i]));
}

}  // namespace
}  // namespace llm
