#include "backends/cuda/step_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/ceil_div.h"

namespace llm {
namespace {

void check_blocks(const Request& r, int64_t end, int32_t block_size, int64_t num_blocks) {
  const int64_t needed = ceil_div(end, block_size);
  if (needed > static_cast<int64_t>(r.block_ids.size())) {
    throw std::invalid_argument("cuda backend: request " + r.external_id + " has " +
                                std::to_string(r.block_ids.size()) + " KV blocks for " +
                                std::to_string(end) + " tokens");
  }
  for (int64_t i = 0; i < needed; ++i) {
    const int32_t b = r.block_ids[static_cast<size_t>(i)];
    if (b < 0 || b >= num_blocks) {
      throw std::invalid_argument("cuda backend: KV block id " + std::to_string(b) +
                                  " outside the cache's " + std::to_string(num_blocks) + " blocks");
    }
  }
}

}  // namespace

int32_t request_token_at(const Request& r, int64_t pos) {
  return sequence_token_at(r, pos, "cuda backend");
}

void build_step_layout(const SchedulerOutput& batch, int32_t block_size, int64_t num_blocks,
                       int64_t vocab_size, TokenSource token_at, StepLayout& l) {
  std::vector<int32_t> ids, seq, pos, indptr{0}, indices, last, samples;
  l.seq_of.clear();
  l.sample_seq.clear();
  l.max_context = 0;
  l.pure_decode = true;
  for (size_t i = 0; i < batch.seqs.size(); ++i) {
    const ScheduledSeq& s = batch.seqs[i];
    if (s.num_new_tokens <= 0) continue;
    const Request& r = *s.request;
    const int64_t end = s.num_computed_before + s.num_new_tokens;
    check_blocks(r, end, block_size, num_blocks);
    const int32_t index = static_cast<int32_t>(l.seq_of.size());
    l.seq_of.push_back(static_cast<int32_t>(i));
    if (s.num_new_tokens != 1) l.pure_decode = false;
    for (int64_t p = s.num_computed_before; p < end; ++p) {
      const int32_t t = token_at(r, p);
      if (t < 0 || t >= vocab_size) {
        throw std::invalid_argument("cuda backend: request " + r.external_id + ": token id " +
                                    std::to_string(t) + " outside the vocabulary");
      }
      ids.push_back(t);
      seq.push_back(index);
      pos.push_back(static_cast<int32_t>(p));
    }
    const int64_t blocks = ceil_div(end, block_size);
    indices.insert(indices.end(), r.block_ids.begin(), r.block_ids.begin() + blocks);
    indptr.push_back(static_cast<int32_t>(indices.size()));
    last.push_back(static_cast<int32_t>(end - (blocks - 1) * block_size));
    l.max_context = std::max(l.max_context, static_cast<int32_t>(end));
    if (s.samples) {
      samples.push_back(static_cast<int32_t>(ids.size()) - 1);
      l.sample_seq.push_back(static_cast<int32_t>(i));
    }
  }
  l.num_tokens = static_cast<int32_t>(ids.size());
  l.num_seqs = static_cast<int32_t>(l.seq_of.size());
  l.num_samples = static_cast<int32_t>(samples.size());
  l.packed.clear();
  auto append = [&l](const std::vector<int32_t>& v) {
    const int64_t offset = static_cast<int64_t>(l.packed.size());
    l.packed.insert(l.packed.end(), v.begin(), v.end());
    return offset;
  };
  l.token_ids = append(ids);
  l.token_seq = append(seq);
  l.token_pos = append(pos);
  l.indptr = append(indptr);
  l.indices = append(indices);
  l.last_page_len = append(last);
  l.sample_token = append(samples);
}

void pad_decode_layout(int32_t pad, StepLayout& l) {
  if (pad <= 0) return;
  const int32_t t = l.num_tokens;
  std::vector<int32_t> ids(l.at(l.token_ids), l.at(l.token_ids) + t);
  std::vector<int32_t> seq(l.at(l.token_seq), l.at(l.token_seq) + t);
  std::vector<int32_t> pos(l.at(l.token_pos), l.at(l.token_pos) + t);
  std::vector<int32_t> rest(l.packed.begin() + l.indptr, l.packed.end());
  ids.insert(ids.end(), static_cast<size_t>(pad), 0);
  seq.insert(seq.end(), static_cast<size_t>(pad), -1);
  pos.insert(pos.end(), static_cast<size_t>(pad), 0);
  const int64_t shift = 3 * static_cast<int64_t>(pad);
  l.packed.clear();
  l.packed.insert(l.packed.end(), ids.begin(), ids.end());
  l.packed.insert(l.packed.end(), seq.begin(), seq.end());
  l.packed.insert(l.packed.end(), pos.begin(), pos.end());
  l.packed.insert(l.packed.end(), rest.begin(), rest.end());
  l.token_seq = t + pad;
  l.token_pos = 2 * static_cast<int64_t>(t + pad);
  l.indptr += shift;
  l.indices += shift;
  l.last_page_len += shift;
  l.sample_token += shift;
  l.num_tokens = t + pad;
}

}  // namespace llm
