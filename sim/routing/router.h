// Chooses the engine for each arriving request when llmsim runs several data-parallel engines.
// Our own policies see the live state: round-robin; least outstanding requests (running + waiting
// + not yet queued); prefix affinity (the engine whose prefix cache holds the longest prefix of the
// prompt now, ties to the least outstanding). The llm-d policies see only what llm-d's endpoint
// picker sees (sim/routing/epp_scorers.h): the gauges of the last scrape (EngineLoad::scraped) and
// the blocks each engine announced (EngineLoad::announced), scored and weighted as the EPP does
// ("llm-d": queue 2, kv-cache 2, prefix-cache 3, llm-d's default profile; or one scorer alone),
// ties broken by a seeded draw. All children of an n > 1 request go to the same engine.
// Thread-safety: none; simulator thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/kv_cache_manager.h"
#include "core/request.h"
#include "core/rng.h"
#include "sim/routing/epp_scorers.h"
#include "sim/routing/scraped_gauges.h"

namespace llm {

enum class RoutingPolicy : uint8_t {
  kRoundRobin,
  kLeastOutstanding,
  kPrefixAffinity,
  kLlmD,               // the EPP's weighted queue + kv-cache + prefix-cache scorers
  kQueueScorer,        // queue-scorer alone
  kKvCacheScorer,      // kv-cache-utilization-scorer alone
  kPrefixCacheScorer,  // prefix-cache-scorer alone
};

// "round-robin", "least-outstanding", "prefix-affinity", "llm-d", "queue-scorer",
// "kv-cache-utilization-scorer", "prefix-cache-scorer"; throws std::invalid_argument otherwise.
RoutingPolicy parse_routing_policy(const std::string& name);
const char* routing_policy_name(RoutingPolicy policy);
// Whether the policy routes on scraped gauges (the replay then scrapes for the router).
bool routes_on_scrapes(RoutingPolicy policy);
// The EPP profile of an llm-d policy (all zero for our own policies).
ScorerWeights default_scorer_weights(RoutingPolicy policy);

// What an engine has announced of its prefix cache (its KV-cache events), as the EPP indexes it.
class AnnouncedPrefixes {
 public:
  virtual ~AnnouncedPrefixes() = default;
  virtual int32_t block_size() const = 0;
  // How many leading full blocks of the request's prompt the engine announced and still holds.
  virtual int64_t matched_blocks(Request& request) const = 0;
};

// What the router may see of one engine.
struct EngineLoad {
  int64_t outstanding = 0;
  const KvCacheManager* kv = nullptr;
  GaugeSample scraped;                           // llm-d policies: the gauges as of the last scrape
  const AnnouncedPrefixes* announced = nullptr;  // llm-d policies: null = nothing announced
};

class Router {
 public:
  // `weights` replace the policy's default profile (llm-d policies only); `seed` draws the ties.
  explicit Router(RoutingPolicy policy, const ScorerWeights* weights = nullptr, uint64_t seed = 0);
  // The index of the engine for `request` (its block hashes may be memoized by the lookup).
  size_t pick(Request& request, std::span<const EngineLoad> engines);

 private:
  size_t pick_live(Request& request, std::span<const EngineLoad> engines);
  size_t pick_like_epp(Request& request, std::span<const EngineLoad> engines);

  RoutingPolicy policy_;
  ScorerWeights weights_;
  Rng ties_;
  size_t next_ = 0;
  std::vector<EndpointView> views_;  // scratch
};

}  // namespace llm
