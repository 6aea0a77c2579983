#include "sim/replay/replay_options.h"

#include "sim/routing/router.h"

namespace llm {

ReplayConfig make_replay_config(const ReplayOptions& o, ResolvedEngine* resolved) {
  ReplayConfig c;
  ResolvedEngine engine = resolve_engine_args(o.engine);
  if (resolved) *resolved = engine;
  c.scheduler = engine.scheduler;
  c.deployment = engine.deployment;
  c.seed = o.seed;
  c.data_parallel_size = o.data_parallel_size;
  c.routing = parse_routing_policy(o.routing_policy);
  if (o.epp_scrape_interval_ns) c.epp.scrape_interval = *o.epp_scrape_interval_ns;
  if (o.epp_staleness_ns) c.epp.staleness = *o.epp_staleness_ns;
  c.epp.weights = o.epp_weights;
  return c;
}

}  // namespace llm
