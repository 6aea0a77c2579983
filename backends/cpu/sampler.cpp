#include "backends/cpu/sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/rng.h"

namespace llm {
namespace {

bool greedy(const SamplingParams& p) { return p.temperature < kGreedyTemperature; }

bool before(const TokenProb& a, const TokenProb& b) {
  return a.prob > b.prob || (a.prob == b.prob && a.token < b.token);
}

// Orders d (normalised probabilities; the first `sorted` entries already in `before` order) only as
// far as top-p needs, sorting a growing prefix instead of the whole vocabulary, and returns how
// many leading entries reach mass top_p (at least 1).
size_t top_p_keep(std::vector<TokenProb>& d, double top_p, size_t sorted) {
  size_t k = std::min<size_t>(64, d.size());
  size_t keep = 0;
  double mass = 0;
  for (;;) {
    if (k > sorted) {
      std::partial_sort(d.begin() + static_cast<ptrdiff_t>(sorted),
                        d.begin() + static_cast<ptrdiff_t>(k), d.end(), before);
      sorted = k;
    }
    while (keep < k && mass < top_p) mass += d[keep++].prob;
    if (mass >= top_p || k == d.size()) return std::max<size_t>(keep, 1);
    k = std::min(d.size(), k * 4);
  }
}

}  // namespace

int32_t argmax_token(std::span<const float> logits) {
  if (logits.empty()) throw std::invalid_argument("argmax_token: empty logits");
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

std::vector<TokenProb> sampling_distribution(std::span<const float> logits,
                                             const SamplingParams& params) {
  if (logits.empty()) throw std::invalid_argument("sampling_distribution: empty logits");
  const double t = std::max(params.temperature, kGreedyTemperature);
  double max_logit = -INFINITY;
  for (float l : logits) max_logit = std::max(max_logit, static_cast<double>(l));
  std::vector<TokenProb> d(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    d[i] = {static_cast<int32_t>(i), std::exp((static_cast<double>(logits[i]) - max_logit) / t)};
  }
  if (params.min_p > 0) {  // the likeliest token's weight is exp(0) = 1
    std::erase_if(d, [&params](const TokenProb& p) { return p.prob < params.min_p; });
  }
  const bool top_k = params.top_k > 0 && static_cast<size_t>(params.top_k) < d.size();
  const bool top_p = params.top_p < 1.0;
  if (top_k) {
    const auto kth = d.begin() + params.top_k;
    std::partial_sort(d.begin(), kth, d.end(), before);
    d.erase(kth, d.end());
  }
  double sum = 0;
  for (const TokenProb& p : d) sum += p.prob;
  for (TokenProb& p : d) p.prob /= sum;
  if (top_p) {
    d.resize(top_p_keep(d, params.top_p, top_k ? d.size() : 0));
    sum = 0;
    for (const TokenProb& p : d) sum += p.prob;
    for (TokenProb& p : d) p.prob /= sum;
  }
  if (top_k || top_p) {
    std::sort(d.begin(), d.end(),
              [](const TokenProb& a, const TokenProb& b) { return a.token < b.token; });
  }
  return d;
}

uint64_t sampling_seed(const SamplingParams& params, int64_t num_output_tokens) {
  return hash_combine(params.seed, static_cast<uint64_t>(num_output_tokens));
}

bool has_penalties(const SamplingParams& params) {
  return params.repetition_penalty != 1.0 || params.frequency_penalty != 0 ||
         params.presence_penalty != 0;
}

void keep_allowed_tokens(std::span<float> logits, const SamplingParams& params) {
  const std::vector<int32_t>& allowed = params.allowed_token_ids;  // sorted, unique
  if (allowed.empty()) return;
  size_t next = 0;
  for (size_t id = 0; id < logits.size(); ++id) {
    if (next < allowed.size() && static_cast<size_t>(allowed[next]) == id) {
      ++next;
    } else {
      logits[id] = -INFINITY;
    }
  }
}

void add_logit_bias(std::span<float> logits, const SamplingParams& params) {
  for (const auto& [id, bias] : params.logit_bias) {
    if (id >= 0 && static_cast<size_t>(id) < logits.size()) logits[static_cast<size_t>(id)] += bias;
  }
}

bool adjusts_logits(const SamplingParams& params, int64_t num_output_tokens) {
  return num_output_tokens < params.min_tokens || !params.logit_bias.empty() ||
         !params.allowed_token_ids.empty() || has_penalties(params);
}

bool apply_penalties(std::span<float> logits, const SamplingParams& params,
                     std::span<const int32_t> prompt, std::span<const int32_t> output) {
  if (!has_penalties(params)) return false;
  auto in_vocab = [&logits](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < logits.size();
  };
  std::vector<int32_t> out(output.begin(), output.end());
  std::sort(out.begin(), out.end());
  if (params.repetition_penalty != 1.0) {
    std::vector<int32_t> seen(prompt.begin(), prompt.end());
    seen.insert(seen.end(), out.begin(), out.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    const float penalty = static_cast<float>(params.repetition_penalty);
    for (int32_t id : seen) {
      if (!in_vocab(id)) continue;
      float& l = logits[static_cast<size_t>(id)];
      l *= l > 0 ? 1.0f / penalty : penalty;  // as vLLM: times the reciprocal
    }
  }
  const float frequency = static_cast<float>(params.frequency_penalty);
  const float presence = static_cast<float>(params.presence_penalty);
  for (size_t i = 0; i < out.size();) {
    size_t j = i;
    while (j < out.size() && out[j] == out[i]) ++j;
    if (in_vocab(out[i])) {
      float& l = logits[static_cast<size_t>(out[i])];
      l -= frequency * static_cast<float>(j - i);
      l -= presence;
    }
    i = j;
  }
  return true;
}

bool hold_back_stop_tokens(std::span<float> logits, const SamplingParams& params,
                           std::span<const int32_t> eos_ids, int64_t num_output_tokens) {
  if (num_output_tokens >= params.min_tokens) return false;
  auto mask = [&logits](int32_t id) {
    if (id >= 0 && static_cast<size_t>(id) < logits.size())
      logits[static_cast<size_t>(id)] = -INFINITY;
  };
  for (int32_t id : params.stop_token_ids) mask(id);
  if (!params.ignore_eos) {
    for (int32_t id : eos_ids) mask(id);
  }
  return true;
}

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, uint64_t seed) {
  if (greedy(params)) return argmax_token(logits);
  const std::vector<TokenProb> d = sampling_distribution(logits, params);
  const double u = Rng(seed).uniform();
  double cdf = 0;
  for (const TokenProb& p : d) {
    cdf += p.prob;
    if (u < cdf) return p.token;
  }
  // Rounding left the sum short of u: the last token that can be drawn (a held-back one has 0).
  for (auto it = d.rbegin(); it != d.rend(); ++it) {
    if (it->prob > 0) return it->token;
  }
  return d.back().token;
}

}  // namespace llm
