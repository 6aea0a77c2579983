#include "backends/cuda/step_layout.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <stdexcept>

namespace llm {
namespace {

int32_t token_of(const Request& r, int64_t pos) {
  return r.prompt_tokens.at(static_cast<size_t>(pos));
}

std::unique_ptr<Request> request(const std::string& id, int64_t len, std::vector<int32_t> blocks) {
  auto r = std::make_unique<Request>();
  r->external_id = id;
  r->prompt_len = len;
  for (int64_t i = 0; i < len; ++i) r->prompt_tokens.push_back(static_cast<int32_t>(100 + i));
  r->block_ids = std::move(blocks);
  return r;
}

std::vector<int32_t> slice(const StepLayout& l, int64_t offset, int64_t n) {
  return {l.at(offset), l.at(offset) + n};
}

TEST(StepLayout, MixedStepGivesCsrPageTableTokensAndSampleRows) {
  // a: prefill chunk of 5 tokens at 3..7 (blocks 9, 4 of size 4); b: one decode token at 6;
  // c: scheduled for nothing (skipped).
  auto a = request("a", 8, {9, 4, 7});
  auto b = request("b", 7, {2, 5});
  auto c = request("c", 3, {1});
  SchedulerOutput batch;
  batch.seqs = {{a.get(), 3, 5, true}, {c.get(), 3, 0, false}, {b.get(), 6, 1, true}};
  StepLayout l;
  build_step_layout(batch, 4, 10, 1000, token_of, l);
  EXPECT_EQ(l.num_tokens, 6);
  EXPECT_EQ(l.num_seqs, 2);
  EXPECT_EQ(l.num_samples, 2);
  EXPECT_EQ(l.max_context, 8);
  EXPECT_FALSE(l.pure_decode);
  EXPECT_EQ(slice(l, l.token_ids, 6), (std::vector<int32_t>{103, 104, 105, 106, 107, 106}));
  EXPECT_EQ(slice(l, l.token_seq, 6), (std::vector<int32_t>{0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(slice(l, l.token_pos, 6), (std::vector<int32_t>{3, 4, 5, 6, 7, 6}));
  EXPECT_EQ(slice(l, l.indptr, 3), (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(slice(l, l.indices, 4), (std::vector<int32_t>{9, 4, 2, 5}));  // a's third block unused
  EXPECT_EQ(slice(l, l.last_page_len, 2), (std::vector<int32_t>{4, 3}));
  EXPECT_EQ(slice(l, l.sample_token, 2), (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(l.seq_of, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(l.sample_seq, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(static_cast<int64_t>(l.packed.size()), l.sample_token + 2);
}

TEST(StepLayout, DecodeOnlyStepIsPureDecode) {
  auto a = request("a", 5, {3, 8});
  SchedulerOutput batch;
  batch.seqs = {{a.get(), 4, 1, true}};
  StepLayout l;
  build_step_layout(batch, 4, 10, 1000, token_of, l);
  EXPECT_TRUE(l.pure_decode);
  EXPECT_EQ(slice(l, l.last_page_len, 1), (std::vector<int32_t>{1}));
}

TEST(StepLayout, RejectsShortBlockTablesBlocksOutsideTheCacheAndTokensOutsideTheVocab) {
  auto a = request("a", 9, {3, 8});  // 9 tokens need 3 blocks of 4
  SchedulerOutput batch;
  batch.seqs = {{a.get(), 0, 9, true}};
  StepLayout l;
  EXPECT_THROW(build_step_layout(batch, 4, 10, 1000, token_of, l), std::invalid_argument);
  a->block_ids = {3, 8, 10};
  EXPECT_THROW(build_step_layout(batch, 4, 10, 1000, token_of, l), std::invalid_argument);
  a->block_ids = {3, 8, 9};
  EXPECT_THROW(build_step_layout(batch, 4, 10, 105, token_of, l), std::invalid_argument);
  EXPECT_NO_THROW(build_step_layout(batch, 4, 10, 1000, token_of, l));
}

TEST(StepLayout, PaddingAppendsCacheSilentTokensAndKeepsTheTable) {
  auto a = request("a", 5, {3, 8});
  auto b = request("b", 2, {6});
  SchedulerOutput batch;
  batch.seqs = {{a.get(), 4, 1, true}, {b.get(), 1, 1, true}};
  StepLayout l;
  build_step_layout(batch, 4, 10, 1000, token_of, l);
  const std::vector<int32_t> indices = slice(l, l.indices, 3),
                             samples = slice(l, l.sample_token, 2);
  pad_decode_layout(2, l);
  EXPECT_EQ(l.num_tokens, 4);
  EXPECT_EQ(slice(l, l.token_ids, 4), (std::vector<int32_t>{104, 101, 0, 0}));
  EXPECT_EQ(slice(l, l.token_seq, 4), (std::vector<int32_t>{0, 1, -1, -1}));
  EXPECT_EQ(slice(l, l.token_pos, 4), (std::vector<int32_t>{4, 1, 0, 0}));
  EXPECT_EQ(slice(l, l.indptr, 3), (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(slice(l, l.indices, 3), indices);
  EXPECT_EQ(slice(l, l.sample_token, 2), samples);
}

TEST(StepLayout, RequestTokensComeFromThePromptThenTheOutputs) {
  auto r = request("r", 3, {1});
  r->output_tokens = {7, 8};
  r->num_output_tokens = 3;
  r->last_output_token = 9;
  EXPECT_EQ(request_token_at(*r, 2), 102);
  EXPECT_EQ(request_token_at(*r, 4), 8);
  EXPECT_EQ(request_token_at(*r, 5), 9);
  EXPECT_THROW(request_token_at(*r, 6), std::invalid_argument);
  r->prompt_tokens.clear();
  EXPECT_THROW(request_token_at(*r, 0), std::invalid_argument);
}

// For any batch: indptr is the running count of each sequence's blocks, indices is each block
// table's prefix, every token's block (from the CSR table) is its request's block at pos / bs,
// and last_page_len is in 1..block_size.
RC_GTEST_PROP(StepLayoutProperty, CsrTableLocatesEveryTokensBlock, ()) {
  const int32_t bs = *rc::gen::inRange(1, 9);
  const int n = *rc::gen::inRange(1, 6);
  std::vector<std::unique_ptr<Request>> reqs;
  SchedulerOutput batch;
  for (int i = 0; i < n; ++i) {
    const int64_t end = *rc::gen::inRange(1, 40);
    const int64_t before = *rc::gen::inRange<int64_t>(0, end);
    const int64_t blocks = (end + bs - 1) / bs + *rc::gen::inRange(0, 3);
    std::vector<int32_t> ids;
    for (int64_t b = 0; b < blocks; ++b) ids.push_back(*rc::gen::inRange(0, 50));
    reqs.push_back(request("r" + std::to_string(i), end, ids));
    batch.seqs.push_back({reqs.back().get(), before, end - before, *rc::gen::arbitrary<bool>()});
  }
  StepLayout l;
  build_step_layout(batch, bs, 50, 1000, token_of, l);
  RC_ASSERT(l.num_seqs == n);
  for (int32_t t = 0; t < l.num_tokens; ++t) {
    const int32_t s = l.at(l.token_seq)[t], pos = l.at(l.token_pos)[t];
    const Request& r = *batch.seqs[static_cast<size_t>(l.seq_of[static_cast<size_t>(s)])].request;
    const int32_t block = l.at(l.indices)[l.at(l.indptr)[s] + pos / bs];
    RC_ASSERT(block == r.block_ids[static_cast<size_t>(pos / bs)]);
    RC_ASSERT(l.at(l.token_ids)[t] == 100 + pos);
  }
  for (int32_t s = 0; s < l.num_seqs; ++s) {
    RC_ASSERT(l.at(l.indptr)[s + 1] > l.at(l.indptr)[s]);
    const int32_t last = l.at(l.last_page_len)[s];
    RC_ASSERT(last >= 1 && last <= bs);
  }
}

}  // namespace
}  // namespace llm
