// Chooses the engine for each arriving request when llmsim runs several data-parallel engines:
// round-robin; least outstanding requests (running + waiting + not yet queued); or prefix affinity
// (the engine whose prefix cache holds the longest prefix of the prompt now, ties to the least
// outstanding). All children of an n > 1 request go to the same engine.
// Thread-safety: none; simulator thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/kv_cache_manager.h"
#include "core/request.h"

namespace llm {

enum class RoutingPolicy : uint8_t { kRoundRobin, kLeastOutstanding, kPrefixAffinity };

// "round-robin", "least-outstanding", "prefix-affinity"; throws std::invalid_argument otherwise.
RoutingPolicy parse_routing_policy(const std::string& name);
const char* routing_policy_name(RoutingPolicy policy);

// What the router may see of one engine.
struct EngineLoad {
  int64_t outstanding = 0;
  const KvCacheManager* kv = nullptr;
};

class Router {
 public:
  explicit Router(RoutingPolicy policy) : policy_(policy) {}
  // The index of the engine for `request` (its block hashes may be memoized by the lookup).
  size_t pick(Request& request, std::span<const EngineLoad> engines);

 private:
  RoutingPolicy policy_;
  size_t next_ = 0;
};

}  // namespace llm
