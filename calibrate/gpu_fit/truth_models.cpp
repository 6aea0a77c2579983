#include "calibrate/gpu_fit/truth_models.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/sim/hf_model_config.h"

namespace llm {
namespace {

struct Alias {
  const char* name;
  const char* folder;
};
// Names the profiles use for checkpoints whose config sits under another folder name.
constexpr Alias kAliases[] = {
    {"meta-llama/llama-3.1-70b", "llama-3.1-70b-instruct"},
    {"meta-llama/llama-3.1-8b", "llama-3.1-8b-instruct"},
    {"qwen/qwen3-30b-a3b-instruct-2507", "qwen3-30b-a3b"},
    {"llama2-70b", "Llama-2-70b-hf"},
    {"codellama/codellama-34b-instruct-hf", "codellama-34b-instruct-hf"},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Qwen/Qwen3-32B (its Hugging Face config.json): 64 layers, hidden 5120, 64 query and 8 KV heads
// of 128, MLP 25600, vocabulary 151936, untied, q/k norms.
ModelShape qwen3_32b() {
  ModelShape m;
  m.name = "Qwen/Qwen3-32B";
  m.layers = 64;
  m.hidden = 5120;
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 25600;
  m.vocab = 151936;
  m.max_context = 40960;
  m.params = params_from_shape(m) + m.layers * 2 * m.head_dim;
  return m;
}

}  // namespace

std::string model_short_name(const std::string& hf_name) {
  return hf_name.substr(hf_name.rfind('/') + 1);
}

ModelShape truth_model(const std::string& truth_root, const std::string& hf_name) {
  const std::string key = lower(hf_name);
  if (key == "qwen/qwen3-32b") return qwen3_32b();
  const std::filesystem::path configs =
      std::filesystem::path(truth_root) / "blis" / "model-configs";
  std::string folder = key.substr(key.rfind('/') + 1);
  for (const Alias& a : kAliases) {
    if (key == a.name) folder = a.folder;
  }
  // The folder of that name, compared without case (both spellings occur); the first in order.
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(configs, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::filesystem::path path = configs / folder / "config.json";
  for (const std::string& name : names) {
    if (lower(name) == lower(folder)) {
      path = configs / name / "config.json";
      break;
    }
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw std::invalid_argument("no config.json for model '" + hf_name + "' (looked for " +
                                path.string() + ")");
  }
  ModelShape m = load_hf_model_config(path.string());
  m.name = hf_name;
  return m;
}

}  // namespace llm
