// The endpoint picker's (EPP's) scoring of llm-d and the Gateway API Inference Extension, for
// llmsim's router: each scorer gives every candidate engine a score in [0, 1] from what the EPP
// can see of it, the weighted sum ranks them, and the max-score picker takes the best, breaking
// ties at random (the EPP shuffles its candidates; here a seeded Rng, so replays stay
// deterministic).
//   queue-scorer                 (max - waiting) / (max - min) over the candidates; 1 when equal
//   kv-cache-utilization-scorer  1 - vllm:kv_cache_usage_perc
//   prefix-cache-scorer          matched prefix blocks / the request's blocks (0 for none)
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rng.h"

namespace llm {

// One engine as the EPP sees it: its last scraped gauges and what it announced of its cache.
struct EndpointView {
  int64_t waiting = 0;         // vllm:num_requests_waiting
  double kv_usage = 0;         // vllm:kv_cache_usage_perc, 0..1
  int64_t matched_blocks = 0;  // leading blocks of the request this engine announced
  int64_t request_blocks = 0;  // full blocks of the request's prompt
};

// Scorer weights of an EPP scheduling profile; a zero weight leaves that scorer out.
struct ScorerWeights {
  double queue = 0;
  double kv_cache = 0;
  double prefix_cache = 0;
};

// "queue=W,kv-cache=W,prefix-cache=W" (any subset; the others 0, weights >= 0, not all 0).
// Throws std::invalid_argument naming the bad part.
ScorerWeights parse_scorer_weights(const std::string& text);
std::string scorer_weights_text(const ScorerWeights& weights);

std::vector<double> queue_scores(std::span<const EndpointView> endpoints);
std::vector<double> kv_cache_scores(std::span<const EndpointView> endpoints);
std::vector<double> prefix_cache_scores(std::span<const EndpointView> endpoints);

// sum over scorers of weight x score, per endpoint.
std::vector<double> weighted_scores(std::span<const EndpointView> endpoints,
                                    const ScorerWeights& weights);

// The index of the highest score; among equal ones, one drawn from `rng` (drawn only on a tie).
size_t pick_max_score(std::span<const double> scores, Rng& rng);

}  // namespace llm
