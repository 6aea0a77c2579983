#include "backends/cpu/logprobs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace llm {

PositionLogprobs position_logprobs(std::span<const float> logits, int32_t token, int32_t k) {
  if (logits.empty() || token < 0 || static_cast<size_t>(token) >= logits.size() || k < 0) {
    throw std::invalid_argument("position_logprobs: token or k out of range");
  }
  double max_logit = -INFINITY;
  for (float l : logits) max_logit = std::max(max_logit, static_cast<double>(l));
  double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<double>(l) - max_logit);
  const double log_z = max_logit + std::log(sum);
  auto logprob = [&](int32_t id) {
    return static_cast<float>(static_cast<double>(logits[static_cast<size_t>(id)]) - log_z);
  };

  PositionLogprobs p;
  p.token = token;
  p.logprob = logprob(token);
  const float chosen = logits[static_cast<size_t>(token)];
  p.rank = std::count_if(logits.begin(), logits.end(), [&](float l) { return l >= chosen; });

  const size_t n = std::min(static_cast<size_t>(k), logits.size());
  if (n == 0) return p;
  std::vector<int32_t> ids(logits.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  auto more_likely = [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)], lb = logits[static_cast<size_t>(b)];
    return la > lb || (la == lb && a < b);
  };
  std::partial_sort(ids.begin(), ids.begin() + static_cast<ptrdiff_t>(n), ids.end(), more_likely);
  p.top.reserve(n);
  for (size_t i = 0; i < n; ++i) p.top.push_back({ids[i], logprob(ids[i])});
  return p;
}

}  // namespace llm
