#include "backends/cuda/gpu_check/step_driver.h"

#include <stdexcept>

#include "core/rng.h"

namespace llm {

StepDriver::StepDriver(int64_t num_blocks, int32_t block_size, uint64_t shuffle_seed)
    : block_size_(block_size) {
  for (int64_t b = num_blocks - 1; b >= 1; --b) free_.push_back(static_cast<int32_t>(b));
  if (shuffle_seed != 0) {
    Rng rng(shuffle_seed);
    for (size_t i = free_.size(); i > 1; --i) std::swap(free_[i - 1], free_[rng.below(i)]);
  }
}

size_t StepDriver::add(std::vector<int32_t> prompt, const SamplingParams& params) {
  auto r = std::make_unique<Request>();
  r->external_id = "req" + std::to_string(requests_.size());
  r->prompt_len = static_cast<int64_t>(prompt.size());
  r->prompt_tokens = std::move(prompt);
  r->params = params;
  r->keep_output_tokens = true;
  requests_.push_back(std::move(r));
  computed_.push_back(0);
  return requests_.size() - 1;
}

void StepDriver::schedule(size_t i, int64_t n) {
  Request& r = *requests_[i];
  const int64_t known = r.prompt_len + r.num_output_tokens;
  const int64_t end = computed_[i] + n;
  if (end > known) throw std::logic_error("StepDriver: scheduling past the known tokens");
  while (static_cast<int64_t>(r.block_ids.size()) * block_size_ < end) {
    if (free_.empty()) throw std::logic_error("StepDriver: out of KV blocks");
    r.block_ids.push_back(free_.back());
    free_.pop_back();
  }
  batch_.seqs.push_back({&r, computed_[i], n, end == known});
  computed_[i] = end;
}

void StepDriver::apply(const std::vector<int32_t>& sampled) {
  for (size_t k = 0; k < batch_.seqs.size(); ++k) {
    if (!batch_.seqs[k].samples) continue;
    Request& r = *batch_.seqs[k].request;
    r.output_tokens.push_back(sampled.at(k));
    r.last_output_token = sampled[k];
    r.num_output_tokens += 1;
  }
  batch_.seqs.clear();
}

void StepDriver::reset(size_t i) {
  Request& r = *requests_[i];
  for (int32_t b : r.block_ids) free_.push_back(b);
  r.block_ids.clear();
  computed_[i] = 0;
}

std::vector<int32_t> seeded_prompt(uint64_t seed, int64_t n, int64_t vocab) {
  Rng rng(seed);
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (int32_t& x : t) x = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab)));
  return t;
}

}  // namespace llm
