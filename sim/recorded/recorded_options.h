// What the recorded-run readers need beyond the run's files: where the models' config.json files
// are, and the card and model to use when a run does not say (or to override what it says).
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

struct RecordedOptions {
  std::string model_configs;  // folder of <model>/config.json; "" = look near the run
  std::string gpu;            // --gpu for every run ("" = the run's card, as a preset)
  std::string model;          // --model for every run ("" = the run's model's config.json)
  uint64_t seed = 42;         // arrivals of regenerated loads (inference-perf's own seed)
};

}  // namespace llm
