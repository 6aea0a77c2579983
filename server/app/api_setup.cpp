#include "server/app/api_setup.h"

namespace llm {

ApiOptions api_options(const ServerOptions& o) {
  ApiOptions a;
  a.api_key = o.api_key;
  a.metrics_api_key = o.metrics_api_key;
  a.enable_request_id_headers = o.enable_request_id_headers;
  a.enable_force_include_usage = o.enable_force_include_usage;
  a.enable_per_request_metrics = o.enable_per_request_metrics;
  a.enable_prompt_tokens_details = o.enable_prompt_tokens_details;
  a.max_waiting_requests = o.max_waiting_requests;
  a.admission_caps = {o.max_num_queued_reqs, o.max_num_queued_tokens};
  a.seed = o.seed;
  return a;
}

ModelInfo served_model_info(const ServerOptions& options, const EngineSetup& setup) {
  ModelInfo info{setup.served_model_name, setup.scheduler.max_model_len,
                 setup.scheduler.policy == SchedulingPolicy::kPriority,
                 setup.served_model_aliases,
                 // the cuda sampler has no min_tokens, penalties or min_p yet
                 options.backend != "cuda"};
  // Only the simulated model answers tools and response_format (synthetic, well-formed); the
  // real ones have no constrained decoding and refuse those fields.
  info.structured_outputs = options.backend == "sim";
  return info;
}

}  // namespace llm
