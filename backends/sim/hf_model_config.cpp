// Hugging Face config.json -> ModelShape. The field names and their defaults are those of the
// transformers configuration classes of each architecture (LlamaConfig, MistralConfig,
// MixtralConfig, Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig, Llama4TextConfig);
// which layers are MoE follows vLLM's model code for each.
// Thread-safety: pure functions; the loader only reads its file.
#include "backends/sim/hf_model_config.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/sim/json_fields.h"

namespace llm {
namespace {

using nlohmann::json;

// The architectures it models, by model_type. "family" picks the MoE and bias rules below.
struct Architecture {
  const char* architecture;
  const char* model_type;
};
constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama"},        {"MistralForCausalLM", "mistral"},
    {"MixtralForCausalLM", "mixtral"},    {"Qwen2ForCausalLM", "qwen2"},
    {"Qwen2MoeForCausalLM", "qwen2_moe"}, {"Qwen3ForCausalLM", "qwen3"},
    {"Qwen3MoeForCausalLM", "qwen3_moe"}, {"Llama4ForConditionalGeneration", "llama4"},
    {"Llama4ForCausalLM", "llama4_text"},
};

// Reads fields of one JSON object, naming FILE and the field's path in every error.
class ConfigFields {
 public:
  ConfigFields(const json& obj, std::string file, std::string prefix)
      : obj_(obj), file_(std::move(file)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw std::invalid_argument(file_ + ": field '" + prefix_ + key + "': " + what);
  }
  bool has(const std::string& key) const {
    const auto it = obj_.find(key);
    return it != obj_.end() && !it->is_null();
  }
  const json* get(const std::string& key) const {
    const auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }
  int64_t integer(const std::string& key) const {
    const json* v = get(key);
    if (!v) {
      throw std::invalid_argument(file_ + ": missing required field '" + prefix_ + key + "'");
    }
    return as_integer(key, *v);
  }
  int64_t integer_or(const std::string& key, int64_t fallback) const {
    const json* v = get(key);
    return v ? as_integer(key, *v) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, std::string("expected true or false, got ") + v->type_name());
    return v->get<bool>();
  }
  std::string text_or(const std::string& key, const std::string& fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key, std::string("expected a string, got ") + v->type_name());
    return v->get<std::string>();
  }
  std::vector<int64_t> integers_or_empty(const std::string& key) const {
    const json* v = get(key);
    std::vector<int64_t> out;
    if (!v) return out;
    if (!v->is_array())
      fail(key, std::string("expected a list of integers, got ") + v->type_name());
    for (const json& item : *v) out.push_back(as_integer(key, item));
    return out;
  }
  const json& object() const { return obj_; }
  const std::string& file() const { return file_; }
  const std::string& prefix() const { return prefix_; }

 private:
  int64_t as_integer(const std::string& key, const json& v) const {
    if (!v.is_number_integer()) fail(key, std::string("expected an integer, got ") + v.type_name());
    if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t{1} << 62)) {
      fail(key, "integer out of range");
    }
    return v.get<int64_t>();
  }

  const json& obj_;
  std::string file_;
  std::string prefix_;
};

std::string config_file_of(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return (std::filesystem::path(path) / "config.json").string();
  return path;
}

// The checkpoint's dtype: torch_dtype (or dtype, newer transformers), in text_config or at the
// top. vLLM's dtype "auto" serves 16-bit checkpoints as they are and float32 ones in 16 bits.
void check_checkpoint_dtype(const ConfigFields& top, const ConfigFields& text) {
  for (const ConfigFields* f : {&text, &top}) {
    for (const char* key : {"torch_dtype", "dtype"}) {
      const std::string dtype = f->text_or(key, "");
      if (dtype.empty()) continue;
      if (dtype != "bfloat16" && dtype != "float16" && dtype != "float32") {
        f->fail(key, "'" + dtype + "' is not modelled (bfloat16, float16 or float32)");
      }
      return;
    }
  }
}

const Architecture& architecture_of(const ConfigFields& top) {
  std::string architecture;
  if (const json* a = top.get("architectures")) {
    if (!a->is_array() || a->empty() || !(*a)[0].is_string()) {
      top.fail("architectures", "expected a list of architecture names");
    }
    architecture = (*a)[0].get<std::string>();
  }
  const std::string model_type = top.text_or("model_type", "");
  for (const Architecture& known : kArchitectures) {
    if (!architecture.empty() ? architecture == known.architecture : model_type == known.model_type)
      return known;
  }
  std::string names;
  for (const Architecture& known : kArchitectures) {
    names += names.empty() ? "" : ", ";
    names += known.architecture;
  }
  if (!architecture.empty()) {
    top.fail("architectures", "'" + architecture + "' is not modelled (modelled: " + names + ")");
  }
  if (model_type.empty()) {
    throw std::invalid_argument(top.file() +
                                ": missing required field 'architectures' (or 'model_type')");
  }
  top.fail("model_type", "'" + model_type + "' is not modelled (modelled: " + names + ")");
}

// Fields whose presence means an attention or layer layout the cost model does not price.
void refuse_unmodelled(const ConfigFields& text, const std::string& family) {
  for (const char* key : {"kv_lora_rank", "q_lora_rank"}) {
    if (text.has(key)) text.fail(key, "multi-head latent attention is not modelled");
  }
  const bool uses_window =
      text.has("sliding_window") &&
      (family == "mistral" || family == "mixtral" || text.boolean_or("use_sliding_window", false));
  if (uses_window) {
    text.fail("sliding_window",
              "sliding-window attention is not modelled (every layer is priced "
              "with full attention)");
  }
  if (const json* types = text.get("layer_types")) {
    if (!types->is_array()) text.fail("layer_types", "expected a list");
    for (const json& t : *types) {
      if (!t.is_string() || t.get<std::string>() != "full_attention") {
        text.fail("layer_types", "only full_attention layers are modelled");
      }
    }
  }
}

// Sets the MoE fields and counts the MoE layers, by each family's rule.
void read_experts(const ConfigFields& text, const std::string& family, ModelShape& m) {
  if (family == "mixtral") {
    m.num_experts = text.integer("num_local_experts");
    m.experts_per_token = text.integer("num_experts_per_tok");
    m.expert_ffn = text.integer("intermediate_size");
    m.moe_layers = m.layers;
    m.ffn = 0;
    return;
  }
  if (family == "llama4" || family == "llama4_text") {
    m.num_experts = text.integer("num_local_experts");
    m.experts_per_token = text.integer("num_experts_per_tok");
    m.expert_ffn = text.integer("intermediate_size");
    m.shared_expert_ffn = m.expert_ffn;  // Llama 4's shared expert is as wide as a routed one
    m.ffn = text.integer_or("intermediate_size_mlp", m.expert_ffn);
    const std::vector<int64_t> listed = text.integers_or_empty("moe_layers");
    if (!listed.empty()) {
      m.moe_layers = static_cast<int64_t>(std::set<int64_t>(listed.begin(), listed.end()).size());
    } else {
      const int64_t step = text.integer_or("interleave_moe_layer_step", 1);
      if (step < 1) text.fail("interleave_moe_layer_step", "must be >= 1");
      m.moe_layers = m.layers / step;  // layers step-1, 2*step-1, ...
    }
    return;
  }
  if (family == "qwen2_moe" || family == "qwen3_moe") {
    m.num_experts = text.integer("num_experts");
    m.experts_per_token = text.integer("num_experts_per_tok");
    m.expert_ffn = text.integer("moe_intermediate_size");
    m.shared_expert_ffn = text.integer_or("shared_expert_intermediate_size", 0);
    const int64_t step = text.integer_or("decoder_sparse_step", 1);
    if (step < 1) text.fail("decoder_sparse_step", "must be >= 1");
    const std::vector<int64_t> dense_listed = text.integers_or_empty("mlp_only_layers");
    const std::set<int64_t> dense(dense_listed.begin(), dense_listed.end());
    m.moe_layers = 0;
    for (int64_t i = 0; i < m.layers; ++i) {
      if (!dense.contains(i) && (i + 1) % step == 0) ++m.moe_layers;
    }
  }
}

// Bytes per weight of the attention and MLP matrices from quantization_config (0: as the rest).
void read_quantization(const ConfigFields& top, ModelShape& m) {
  const json* q = top.get("quantization_config");
  if (!q) return;
  if (!q->is_object()) top.fail("quantization_config", "expected an object");
  const ConfigFields qf(*q, top.file(), "quantization_config.");
  const std::string method = qf.text_or("quant_method", "");
  if (method == "fp8") {
    m.attention_weight_bytes = 1;
    m.mlp_weight_bytes = 1;
    return;
  }
  if (method != "compressed-tensors") {
    qf.fail("quant_method",
            "'" + method + "' is not modelled (fp8, or compressed-tensors with 8-bit weights)");
  }
  const json* groups = qf.get("config_groups");
  if (!groups || !groups->is_object() || groups->empty()) {
    qf.fail("config_groups", "expected an object of quantization groups");
  }
  for (const auto& [name, group] : groups->items()) {
    const std::string where = "config_groups." + name + ".weights";
    const json* weights =
        group.is_object() && group.contains("weights") ? &group["weights"] : nullptr;
    if (!weights || !weights->is_object()) qf.fail(where, "expected an object");
    const ConfigFields wf(*weights, top.file(), "quantization_config." + where + ".");
    const int64_t bits = wf.integer("num_bits");
    if (bits != 8) wf.fail("num_bits", std::to_string(bits) + "-bit weights are not modelled (8)");
  }
  // The ignore list keeps modules in 16 bits: attention projections, say, or the experts.
  bool attention_kept = false, mlp_kept = false;
  if (const json* ignore = qf.get("ignore")) {
    if (!ignore->is_array()) qf.fail("ignore", "expected a list of module names");
    for (const json& entry : *ignore) {
      if (!entry.is_string()) qf.fail("ignore", "expected a list of module names");
      const std::string module = entry.get<std::string>();
      if (module.find("vision") != std::string::npos) continue;
      if (module.find("self_attn") != std::string::npos) attention_kept = true;
      if (module.find(".mlp.") != std::string::npos || module.find("experts") != std::string::npos)
        mlp_kept = true;
    }
  }
  m.attention_weight_bytes = attention_kept ? 0 : 1;
  m.mlp_weight_bytes = mlp_kept ? 0 : 1;
}

// Parameters beyond params_from_shape: Q/K/V biases, Q/K norms, shared-expert gates.
int64_t extra_params(const ConfigFields& text, const std::string& family, const ModelShape& m) {
  int64_t extra = 0;
  const int64_t qkv_width = (m.heads + 2 * m.kv_heads) * m.head_dim;
  if (family == "qwen2" || family == "qwen2_moe") extra += m.layers * qkv_width;  // QKV biases
  if (family == "llama" && text.boolean_or("attention_bias", false)) {
    extra += m.layers * (qkv_width + m.hidden);  // Q/K/V and output biases
  }
  if (family == "qwen3" || family == "qwen3_moe") extra += m.layers * 2 * m.head_dim;  // q/k norms
  if (family == "qwen2_moe" && m.shared_expert_ffn > 0) extra += m.moe_layers * m.hidden;
  return extra;
}

}  // namespace

bool is_hf_model_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return std::filesystem::is_regular_file(std::filesystem::path(path) / "config.json", ec);
  }
  if (!sim_json::is_json_path(path)) return false;
  json obj;
  try {
    obj = sim_json::read_json_object(path);
  } catch (const std::invalid_argument&) {
    return false;  // the model-JSON loader reports the file's problem
  }
  return obj.contains("architectures") || obj.contains("model_type") || obj.contains("hidden_size");
}

ModelShape load_hf_model_config(const std::string& path) {
  const std::string file = config_file_of(path);
  const json root = sim_json::read_json_object(file);
  const ConfigFields top(root, file, "");
  const Architecture& arch = architecture_of(top);
  const std::string family = arch.model_type;
  const bool nested = root.contains("text_config");
  if (nested && !root["text_config"].is_object()) top.fail("text_config", "expected an object");
  const ConfigFields text(nested ? root["text_config"] : root, file, nested ? "text_config." : "");
  refuse_unmodelled(text, family);

  ModelShape m;
  m.name = path;
  m.hidden = text.integer("hidden_size");
  m.layers = text.integer("num_hidden_layers");
  m.heads = text.integer("num_attention_heads");
  m.kv_heads = text.integer_or("num_key_value_heads", m.heads);
  if (m.heads <= 0) text.fail("num_attention_heads", "must be > 0");
  m.head_dim = text.integer_or("head_dim", m.hidden / m.heads);
  m.ffn = text.integer("intermediate_size");
  m.vocab = text.integer("vocab_size");
  m.max_context = text.integer("max_position_embeddings");
  m.tied_embeddings =
      text.boolean_or("tie_word_embeddings", top.boolean_or("tie_word_embeddings", false));
  read_experts(text, family, m);
  check_checkpoint_dtype(top, text);
  m.weight_bytes_per_param = 2;
  read_quantization(top, m);
  const std::pair<const char*, int64_t> positive[] = {{"hidden_size", m.hidden},
                                                      {"num_hidden_layers", m.layers},
                                                      {"num_key_value_heads", m.kv_heads},
                                                      {"head_dim", m.head_dim},
                                                      {"vocab_size", m.vocab},
                                                      {"max_position_embeddings", m.max_context}};
  for (const auto& [key, value] : positive) {
    if (value <= 0) text.fail(key, "must be > 0, got " + std::to_string(value));
  }
  if (m.heads % m.kv_heads != 0) {
    text.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) +
                                         "), got " + std::to_string(m.kv_heads));
  }
  m.params = 1;  // checked before it is counted, so that the count cannot overflow
  for (int pass = 0; pass < 2; ++pass) {
    if (const std::string problem = model_shape_problem(m); !problem.empty()) {
      throw std::invalid_argument(file + ": " + problem);
    }
    m.params = params_from_shape(m) + extra_params(text, family, m);
  }
  return m;
}

void apply_weight_format(ModelShape& m, const WeightFormat& format) {
  const std::string& dtype = format.dtype;
  if (dtype == "float32" || dtype == "float") {
    m.weight_bytes_per_param = 4;
  } else if (dtype == "bfloat16" || dtype == "float16" || dtype == "half") {
    m.weight_bytes_per_param = 2;
  } else if (dtype != "auto") {
    throw std::invalid_argument("unknown dtype '" + dtype +
                                "' (accepted: auto, bfloat16, float16, half, float32, float)");
  }
  if (format.quantization == "fp8") {
    m.attention_weight_bytes = 1;
    m.mlp_weight_bytes = 1;
  } else if (!format.quantization.empty()) {
    throw std::invalid_argument("quantization '" + format.quantization +
                                "' is not modelled (accepted: fp8)");
  }
}

}  // namespace llm
