#include "backends/sim/sim_logprobs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/rng.h"

namespace llm {

PositionLogprobs sim_position_logprobs(uint64_t key, int32_t token, int32_t k, int64_t vocab) {
  if (token < 0 || token >= vocab || k < 0) {
    throw std::invalid_argument("sim_position_logprobs: token or k out of range");
  }
  Rng rng(key);
  const int64_t rank = std::min<int64_t>(1 + static_cast<int64_t>(rng.below(4)), vocab);
  const int64_t n = std::min<int64_t>(std::max<int64_t>(k, rank), vocab);
  // Ranked tokens: `token` at its rank, distinct pseudo-random ids elsewhere.
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(n));
  auto taken = [&](int32_t id) {
    return id == token || std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  for (int64_t i = 0; i < n; ++i) {
    if (i + 1 == rank) {
      ids.push_back(token);
      continue;
    }
    int32_t id = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab)));
    while (taken(id)) id = static_cast<int32_t>((id + 1) % vocab);
    ids.push_back(id);
  }
  PositionLogprobs p;
  p.token = token;
  p.rank = rank;
  p.top.reserve(static_cast<size_t>(std::min<int64_t>(k, n)));
  double logprob = 0;
  for (int64_t i = 0; i < n; ++i) {
    logprob -= std::log(2.0) + 0.5 * rng.uniform();  // each at most half the previous
    const float value = static_cast<float>(logprob);
    if (i + 1 == rank) p.logprob = value;
    if (i < k) p.top.push_back({ids[static_cast<size_t>(i)], value});
  }
  return p;
}

}  // namespace llm
