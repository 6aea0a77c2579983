#include "sim/replay/replay_options.h"

#include <string>

#include "core/flag_values.h"
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
  if (o.api_server) c.api_server = engine.api_server;
  c.api_server_count = o.api_server_count;
  try {
    check_fault_engines(o.faults, o.data_parallel_size);
  } catch (const FaultSpecError& e) {
    throw UsageError(std::string("--fault ") + e.what());
  }
  c.faults.windows = o.faults;
  return c;
}

ClientTimesFn client_times_to(ReplayReport& report, std::vector<ReplayReport*> engine_reports) {
  return [&report, engine_reports](size_t engine, const Request& r, const ClientTimes& t) {
    report.note_client_times(r, t);
    if (engine < engine_reports.size()) engine_reports[engine]->note_client_times(r, t);
  };
}

const Trace& replayed_trace(const Trace& trace, const ReplayOptions& o, Trace& storage,
                            LoadScalingInfo& info) {
  LoadScaling scaling;
  scaling.factor = o.arrival_rate_scale;
  scaling.mode = o.load_scaling;
  scaling.loop_to_ns = o.loop_to_ns;
  scaling.seed = o.seed;
  if (scaling.factor == 1.0 && scaling.mode == LoadScalingMode::kStretch &&
      scaling.loop_to_ns == 0) {
    info = LoadScalingInfo{};
    info.trace_requests = info.replayed_requests = static_cast<int64_t>(trace.requests.size());
    info.bursts = arrival_bursts(trace);
    return trace;
  }
  storage = scale_load(trace, scaling, &info);
  return storage;
}

}  // namespace llm
