#include "sim/routing/router.h"

#include <stdexcept>
#include <vector>

namespace llm {
namespace {

constexpr uint64_t kTieStream = 0x74696573ULL;

struct PolicyName {
  RoutingPolicy policy;
  const char* name;
};
constexpr PolicyName kPolicies[] = {
    {RoutingPolicy::kRoundRobin, "round-robin"},
    {RoutingPolicy::kLeastOutstanding, "least-outstanding"},
    {RoutingPolicy::kPrefixAffinity, "prefix-affinity"},
    {RoutingPolicy::kLlmD, "llm-d"},
    {RoutingPolicy::kQueueScorer, "queue-scorer"},
    {RoutingPolicy::kKvCacheScorer, "kv-cache-utilization-scorer"},
    {RoutingPolicy::kPrefixCacheScorer, "prefix-cache-scorer"},
};

bool is_epp_policy(RoutingPolicy p) {
  return p == RoutingPolicy::kLlmD || p == RoutingPolicy::kQueueScorer ||
         p == RoutingPolicy::kKvCacheScorer || p == RoutingPolicy::kPrefixCacheScorer;
}

}  // namespace

RoutingPolicy parse_routing_policy(const std::string& name) {
  std::string all;
  for (const PolicyName& p : kPolicies) {
    if (name == p.name) return p.policy;
    all += all.empty() ? p.name : std::string(", ") + p.name;
  }
  throw std::invalid_argument("unknown routing policy '" + name + "' (" + all + ")");
}

const char* routing_policy_name(RoutingPolicy policy) {
  for (const PolicyName& p : kPolicies) {
    if (p.policy == policy) return p.name;
  }
  return "";
}

bool routes_on_scrapes(RoutingPolicy policy) { return is_epp_policy(policy); }

ScorerWeights default_scorer_weights(RoutingPolicy policy) {
  switch (policy) {
    case RoutingPolicy::kLlmD:
      return {.queue = 2, .kv_cache = 2, .prefix_cache = 3};
    case RoutingPolicy::kQueueScorer:
      return {.queue = 1};
    case RoutingPolicy::kKvCacheScorer:
      return {.kv_cache = 1};
    case RoutingPolicy::kPrefixCacheScorer:
      return {.prefix_cache = 1};
    default:
      return {};
  }
}

Router::Router(RoutingPolicy policy, const ScorerWeights* weights, uint64_t seed)
    : policy_(policy),
      weights_(weights && is_epp_policy(policy) ? *weights : default_scorer_weights(policy)),
      ties_(hash_combine(seed, kTieStream)) {}

size_t Router::pick(Request& request, std::span<const EngineLoad> engines) {
  if (engines.size() <= 1) return 0;
  if (is_epp_policy(policy_)) return pick_like_epp(request, engines);
  return pick_live(request, engines);
}

size_t Router::pick_live(Request& request, std::span<const EngineLoad> engines) {
  if (policy_ == RoutingPolicy::kRoundRobin) return next_++ % engines.size();
  int64_t best_hit = -1;
  size_t best = 0;
  std::vector<int32_t> hits;
  for (size_t i = 0; i < engines.size(); ++i) {
    int64_t hit = 0;
    if (policy_ == RoutingPolicy::kPrefixAffinity && engines[i].kv->prefix_caching()) {
      // Memoize the request's block hashes once; every engine hashes blocks the same way.
      const int64_t lookup_blocks = (request.num_tokens() - 1) / engines[i].kv->block_size();
      if (lookup_blocks > 0) engines[i].kv->block_hash(request, lookup_blocks - 1);
      hit = engines[i].kv->peek_cached_prefix(request, hits);
    }
    const bool better =
        hit > best_hit || (hit == best_hit && engines[i].outstanding < engines[best].outstanding);
    if (better) {
      best_hit = hit;
      best = i;
    }
  }
  return best;
}

size_t Router::pick_like_epp(Request& request, std::span<const EngineLoad> engines) {
  views_.assign(engines.size(), {});
  for (size_t i = 0; i < engines.size(); ++i) {
    EndpointView& v = views_[i];
    v.waiting = engines[i].scraped.waiting;
    v.kv_usage = engines[i].scraped.kv_usage;
    if (weights_.prefix_cache > 0 && engines[i].announced) {
      v.request_blocks = request.num_tokens() / engines[i].announced->block_size();
      v.matched_blocks = engines[i].announced->matched_blocks(request);
    }
  }
  const std::vector<double> scores = weighted_scores(views_, weights_);
  return pick_max_score(scores, ties_);
}

}  // namespace llm
