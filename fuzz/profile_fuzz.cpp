// Fuzz target: the JSON loaders of the mock GPU's profiles (backends/sim/presets.h:
// load_gpu_profile, load_model_shape, which read a ".json" path: the input is written to a scratch
// file of this process) and Hugging Face config.json parsing (backends/model/hf_config.h:
// parse_hf_config_text). Byte 0 picks: 0 a GPU profile file, 1 a model shape file, 2 a
// config.json text, 3 a preset name (no '/' and not ending in ".json").
// Checks: the loaders return or throw std::invalid_argument; parse_hf_config_text returns or
// throws ModelFormatError; a parsed config goes through hf_config_to_json (std::invalid_argument
// allowed) and parse_hf_config back to the same JSON.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backends/model/hf_config.h"
#include "backends/sim/presets.h"
#include "fuzz/fuzz_util.h"

namespace {

using llm::fuzz::returns_or_throws;

void fuzz_hf_config(std::string_view text) {
  llm::ModelConfig config;
  if (!returns_or_throws<llm::ModelFormatError>("parse_hf_config_text", [&] {
        config = llm::parse_hf_config_text(text, "config.json");
      })) {
    return;
  }
  nlohmann::json written;
  if (!returns_or_throws<std::invalid_argument>(
          "hf_config_to_json", [&] { written = llm::hf_config_to_json(config); })) {
    return;
  }
  nlohmann::json again;
  returns_or_throws<>("parse_hf_config of hf_config_to_json's output", [&] {
    again = llm::hf_config_to_json(llm::parse_hf_config(written, "written.json"));
  });
  llm::fuzz::require(again == written, "a config.json written and read back differs",
                     written.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] & 3) {
    case 0:
      returns_or_throws<std::invalid_argument>("load_gpu_profile", [&] {
        llm::load_gpu_profile(llm::fuzz::write_scratch_file("gpu.json", text));
      });
      break;
    case 1:
      returns_or_throws<std::invalid_argument>("load_model_shape", [&] {
        llm::load_model_shape(llm::fuzz::write_scratch_file("model.json", text));
      });
      break;
    case 2:
      fuzz_hf_config(text);
      break;
    default:
      if (text.find('/') != std::string_view::npos || text.ends_with(".json")) break;
      returns_or_throws<std::invalid_argument>("load_gpu_profile of a name",
                                               [&] { llm::load_gpu_profile(std::string(text)); });
      returns_or_throws<std::invalid_argument>("load_model_shape of a name",
                                               [&] { llm::load_model_shape(std::string(text)); });
  }
  return 0;
}
