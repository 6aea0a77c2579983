#include "sim/routing/epp_scorers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace llm {
namespace {

double parse_weight(const std::string& part, const std::string& value) {
  size_t used = 0;
  double w = 0;
  try {
    w = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !std::isfinite(w) || w < 0) {
    throw std::invalid_argument("'" + part + "': the weight must be a number >= 0");
  }
  return w;
}

}  // namespace

ScorerWeights parse_scorer_weights(const std::string& text) {
  ScorerWeights w;
  bool seen[3] = {false, false, false};
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    const size_t eq = part.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("'" + part + "': expected SCORER=WEIGHT");
    }
    const std::string name = part.substr(0, eq);
    const double value = parse_weight(part, part.substr(eq + 1));
    int index = -1;
    if (name == "queue") {
      index = 0, w.queue = value;
    } else if (name == "kv-cache") {
      index = 1, w.kv_cache = value;
    } else if (name == "prefix-cache") {
      index = 2, w.prefix_cache = value;
    } else {
      throw std::invalid_argument("'" + name + "': unknown scorer (queue, kv-cache, prefix-cache)");
    }
    if (seen[index]) throw std::invalid_argument("'" + name + "' given twice");
    seen[index] = true;
    start = comma + 1;
  }
  if (w.queue == 0 && w.kv_cache == 0 && w.prefix_cache == 0) {
    throw std::invalid_argument("all weights are 0");
  }
  return w;
}

std::string scorer_weights_text(const ScorerWeights& w) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "queue=%g,kv-cache=%g,prefix-cache=%g", w.queue, w.kv_cache,
                w.prefix_cache);
  return buf;
}

std::vector<double> queue_scores(std::span<const EndpointView> endpoints) {
  std::vector<double> scores(endpoints.size(), 1.0);
  if (endpoints.empty()) return scores;
  auto [lo, hi] = std::minmax_element(
      endpoints.begin(), endpoints.end(),
      [](const EndpointView& a, const EndpointView& b) { return a.waiting < b.waiting; });
  const int64_t min = lo->waiting;
  const int64_t max = hi->waiting;
  if (max == min) return scores;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    scores[i] = static_cast<double>(max - endpoints[i].waiting) / static_cast<double>(max - min);
  }
  return scores;
}

std::vector<double> kv_cache_scores(std::span<const EndpointView> endpoints) {
  std::vector<double> scores;
  scores.reserve(endpoints.size());
  for (const EndpointView& e : endpoints) scores.push_back(1.0 - std::clamp(e.kv_usage, 0.0, 1.0));
  return scores;
}

std::vector<double> prefix_cache_scores(std::span<const EndpointView> endpoints) {
  std::vector<double> scores;
  scores.reserve(endpoints.size());
  for (const EndpointView& e : endpoints) {
    scores.push_back(e.request_blocks > 0
                         ? static_cast<double>(std::min(e.matched_blocks, e.request_blocks)) /
                               static_cast<double>(e.request_blocks)
                         : 0.0);
  }
  return scores;
}

std::vector<double> weighted_scores(std::span<const EndpointView> endpoints,
                                    const ScorerWeights& weights) {
  std::vector<double> total(endpoints.size(), 0.0);
  auto add = [&total](double weight, const std::vector<double>& scores) {
    if (weight == 0) return;
    for (size_t i = 0; i < total.size(); ++i) total[i] += weight * scores[i];
  };
  add(weights.queue, queue_scores(endpoints));
  add(weights.kv_cache, kv_cache_scores(endpoints));
  add(weights.prefix_cache, prefix_cache_scores(endpoints));
  return total;
}

size_t pick_max_score(std::span<const double> scores, Rng& rng) {
  if (scores.size() <= 1) return 0;
  const double best = *std::max_element(scores.begin(), scores.end());
  std::vector<size_t> ties;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] == best) ties.push_back(i);
  }
  return ties.size() == 1 ? ties[0] : ties[rng.below(ties.size())];
}

}  // namespace llm
