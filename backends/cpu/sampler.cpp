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
  const bool top_k = params.top_k > 0 && static_cast<size_t>(params.top_k) < d.size();
  const bool top_p = params.top_p < 1.0;
  if (top_k) {
    const auto kth = d.begin() + params.top_k;
    std::partial_sort(d.begin(), kth, d.end(), before);
    d.erase(kth, d.end());
  } else if (top_p) {
    std::sort(d.begin(), d.end(), before);
  }
  double sum = 0;
  for (const TokenProb& p : d) sum += p.prob;
  for (TokenProb& p : d) p.prob /= sum;
  if (top_p) {
    double mass = 0;
    size_t keep = 0;
    while (keep < d.size() && mass < params.top_p) mass += d[keep++].prob;
    d.resize(std::max<size_t>(keep, 1));
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

int32_t sample_token(std::span<const float> logits, const SamplingParams& params, uint64_t seed) {
  if (greedy(params)) return argmax_token(logits);
  const std::vector<TokenProb> d = sampling_distribution(logits, params);
  const double u = Rng(seed).uniform();
  double cdf = 0;
  for (const TokenProb& p : d) {
    cdf += p.prob;
    if (u < cdf) return p.token;
  }
  return d.back().token;
}

}  // namespace llm
