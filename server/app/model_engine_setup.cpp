#include "server/app/model_engine_setup.h"

#include "backends/cpu/cpu_engine_config.h"

namespace llm {

EngineSetup make_model_engine_setup(const ServerOptions& o, const ModelConfig& model) {
  EngineSetup e;
  e.scheduler = cpu_scheduler_config(o.engine, model, o.kv_cache_memory_bytes);
  e.cache = cache_config_info(e.scheduler, "float32", o.engine.gpu_memory_utilization,
                              o.engine.num_gpu_blocks_override);
  name_served_model(o, o.engine.model, e);
  e.deployment.model.vocab = model.vocab_size;
  e.deployment.model.max_context = model_context_length(model);
  return e;
}

}  // namespace llm
