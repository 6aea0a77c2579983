#include "sim/router.h"

#include <stdexcept>
#include <vector>

namespace llm {

RoutingPolicy parse_routing_policy(const std::string& name) {
  if (name == "round-robin") return RoutingPolicy::kRoundRobin;
  if (name == "least-outstanding") return RoutingPolicy::kLeastOutstanding;
  if (name == "prefix-affinity") return RoutingPolicy::kPrefixAffinity;
  throw std::invalid_argument("unknown routing policy '" + name +
                              "' (round-robin, least-outstanding, prefix-affinity)");
}

const char* routing_policy_name(RoutingPolicy policy) {
  switch (policy) {
    case RoutingPolicy::kRoundRobin:
      return "round-robin";
    case RoutingPolicy::kLeastOutstanding:
      return "least-outstanding";
    case RoutingPolicy::kPrefixAffinity:
      return "prefix-affinity";
  }
  return "";
}

size_t Router::pick(Request& request, std::span<const EngineLoad> engines) {
  if (engines.size() <= 1) return 0;
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

}  // namespace llm
